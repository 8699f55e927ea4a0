package diffnlr

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/difftrace/difftrace/internal/plural"
	"github.com/difftrace/difftrace/nlr"
)

// Picture is a diffNLR ready to draw or print: the blocks of a Diff and what
// the reader needs to understand them.
type Picture struct {
	Blocks []Block
	// Sections, when not empty, replace Blocks: the picture shows several
	// traces one after the other, each under its title (e.g. the threads of
	// a process). Each section is abridged on its own and marks its own
	// faulty trace's end.
	Sections []Section

	// Title names the comparison, e.g. "diffNLR(5): normal vs faulty";
	// empty gives "diffNLR".
	Title string
	// Normal and Faulty name the two runs; empty gives "normal" and "faulty".
	Normal, Faulty string
	// Label names an element, e.g. "MPI_Init" or "L1^16"; nil gives Label.
	Label func(nlr.Element) string
	// Legend lists the loop bodies the labels refer to, one per line, e.g.
	// "L0 = [MPI_Send, MPI_Recv]".
	Legend []string
	// Notes are lines said before the diff, such as where the traces first
	// part (First.Text).
	Notes []string
	// Bodies, if set, says how the bodies of two different loops that
	// stand at the same place differ ("- update_x"), for the note beside
	// such a change; see loopNote.
	Bodies func(normal, faulty int32) string
	// Abridge limits what long diffs show; the zero value is the default.
	Abridge Abridge
	// Usual, when set, holds the call pairs of the normal runs of a
	// program that varies by itself. Unless Abridge is Full, a change
	// between two common stretches whose faulty side makes only pairs
	// among them (the calls before and after it included) differs as the
	// normal runs differ among themselves, and is shown as one line.
	Usual *Pairs
	// Ended, when not empty, says how the faulty trace was cut short
	// ("killed by the --timeout", "killed by SIGSEGV"): where it ends
	// differently from the normal trace, its last element is marked
	// "faulty trace ends here (Ended)". A trace that ended normally has no
	// marker, however its end differs from the normal one.
	Ended string
	// Depth, when set, says how deep an element stands among the calls the
	// view keeps: the element at (from 0) of the normal (side NormalOnly)
	// or faulty (FaultyOnly) sequence of section (0 for Blocks); 0 for a
	// call no kept call holds, -1 when unknown. Unless Abridge is Full, a
	// changed run too long to show whole is then one line naming its
	// outermost calls, each with how many elements it holds.
	Depth func(section int, side Kind, at int) int
}

// Section is the diff of one trace of a picture that shows several, such as
// one thread of a process.
type Section struct {
	Title  string // e.g. "thread 6.4"
	Blocks []Block
}

// view abridges the picture's diff for display: its blocks, or each of its
// sections after a heading.
func (p *Picture) view() view {
	if len(p.Sections) == 0 {
		return abridge(p.Blocks, p.Abridge, p.Ended != "", p.Usual, p.depthOf(0))
	}
	// Unless everything is drawn, a section without changes is one heading
	// (consecutive ones share it), and a section whose diff is that of an
	// earlier section names it instead of repeating it.
	brief := p.Abridge.Changes >= 0
	var v view
	var unchanged []string
	flush := func() {
		if len(unchanged) > 0 {
			v.parts = append(v.parts, part{head: joinTitles(unchanged), note: "unchanged"})
			unchanged = nil
		}
	}
	for i, s := range p.Sections {
		sv := abridge(s.Blocks, p.Abridge, p.Ended != "", p.Usual, p.depthOf(i))
		v.normalLen += sv.normalLen
		v.faultyLen += sv.faultyLen
		v.changes += sv.changes
		empty := p.emptyText(&sv)
		if brief && sv.changes == 0 && empty == "" {
			unchanged = append(unchanged, s.Title)
			continue
		}
		flush()
		if brief && sv.changes > 0 {
			if j := slices.IndexFunc(p.Sections[:i], func(t Section) bool { return sameBlocks(t.Blocks, s.Blocks) }); j >= 0 {
				v.parts = append(v.parts, part{head: s.Title, note: "the same as " + p.Sections[j].Title})
				continue
			}
		}
		v.parts = append(v.parts, part{head: s.Title, note: empty})
		v.parts = append(v.parts, sv.parts...)
	}
	flush()
	return v
}

// depthOf returns Depth for one section, or nil.
func (p *Picture) depthOf(section int) func(Kind, int) int {
	if p.Depth == nil {
		return nil
	}
	return func(side Kind, at int) int { return p.Depth(section, side, at) }
}

// sameBlocks reports whether two diffs are the same.
func sameBlocks(a, b []Block) bool {
	return slices.EqualFunc(a, b, func(x, y Block) bool {
		return x.Kind == y.Kind && slices.Equal(x.Elems, y.Elems)
	})
}

// joinTitles names several sections in one heading: "thread 6.0" alone,
// "threads 6.0, 6.1, 6.3" when all start with the same word, and at most
// six names before "and N more".
func joinTitles(titles []string) string {
	if len(titles) == 1 {
		return titles[0]
	}
	word, _, _ := strings.Cut(titles[0], " ")
	names := slices.Clone(titles)
	shared := word != titles[0]
	for _, t := range titles {
		if !strings.HasPrefix(t, word+" ") {
			shared = false
		}
	}
	if shared {
		for i, t := range names {
			names[i] = strings.TrimPrefix(t, word+" ")
		}
	}
	const most = 6
	more := ""
	if len(names) > most {
		more = fmt.Sprintf(" and %d more", len(names)-most)
		names = names[:most]
	}
	out := strings.Join(names, ", ") + more
	if shared {
		out = word + "s " + out
	}
	return out
}

// Label is the fallback element label, for callers without a symbol table:
// "L1^16" for a loop, "#42" for symbol 42.
func Label(e nlr.Element) string {
	if e.IsLoop() {
		return "L" + strconv.Itoa(int(e.Loop)) + "^" + strconv.Itoa(int(e.Count))
	}
	return "#" + strconv.FormatUint(uint64(e.Sym), 10)
}

func (p *Picture) title() string {
	if p.Title == "" {
		return "diffNLR"
	}
	return p.Title
}

func (p *Picture) names() (normal, faulty string) {
	normal, faulty = p.Normal, p.Faulty
	if normal == "" {
		normal = "normal"
	}
	if faulty == "" {
		faulty = "faulty"
	}
	return normal, faulty
}

func (p *Picture) label(e nlr.Element) string {
	if p.Label == nil {
		return Label(e)
	}
	return p.Label(e)
}

// hiddenText is the line that stands for hidden elements of kind k.
func (p *Picture) hiddenText(k Kind, n int) string {
	return fmt.Sprintf("… %s more %s …", thousands(n), k)
}

// rowText is the line of a row that stands for elements it does not show:
// "… 187 more faulty-only …", or for a whole changed run, its outermost
// calls: "… 195 faulty-only: step (+31 inside), write, reduce …".
func (p *Picture) rowText(k Kind, r row) string {
	if r.outer == nil {
		return p.hiddenText(k, r.hidden)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "… %s %s: ", thousands(r.hidden), k)
	name := func(c outerCall) {
		b.WriteString(p.label(c.elem))
		if c.inside > 0 {
			fmt.Fprintf(&b, " (+%s inside)", thousands(c.inside))
		}
		if c.times > 1 {
			fmt.Fprintf(&b, " ×%s", thousands(c.times))
		}
	}
	for j, c := range r.outer {
		if len(r.outer) > maxOuter && j >= maxOuter-1 && j < len(r.outer)-1 {
			if j == maxOuter-1 {
				fmt.Fprintf(&b, "… %s more …, ", thousands(len(r.outer)-maxOuter))
			}
			continue
		}
		name(c)
		if j < len(r.outer)-1 {
			b.WriteString(", ")
		}
	}
	b.WriteString(" …")
	return b.String()
}

// skipText is the line that stands for changes that are not shown.
func skipText(s *skipped) string {
	if s.same {
		return "… " + sameText(s) + " …"
	}
	if s.usual {
		return "… " + usualText(s) + " …"
	}
	return fmt.Sprintf("… %s more %s (%s common, %s normal-only, %s faulty-only elements) …",
		thousands(s.changes), plural.Word(s.changes, "change", "changes"),
		thousands(s.common), thousands(s.normal), thousands(s.faulty))
}

// sameText describes a run of repeats of the change shown before it.
func sameText(s *skipped) string {
	times := plural.Word(s.changes, "once more", thousands(s.changes)+" more times")
	if s.every > 0 {
		return fmt.Sprintf("the same change %s, each after the same %s common %s",
			times, thousands(s.every), plural.Word(s.every, "element", "elements"))
	}
	return fmt.Sprintf("the same change %s, %s common %s among them",
		times, thousands(s.common), plural.Word(s.common, "element", "elements"))
}

// usualText describes a change like those between normal runs.
func usualText(s *skipped) string {
	return fmt.Sprintf("a change as between normal runs: %s normal-only, %s faulty-only %s, no call pair the normal runs do not make",
		thousands(s.normal), thousands(s.faulty), plural.Word(s.faulty, "element", "elements"))
}

// skipLines is skipText on two lines, for a box in the picture.
func skipLines(s *skipped) string {
	if s.same {
		return "… " + sameText(s) + " …"
	}
	if s.usual {
		return "… a change as between normal runs …\n" + thousands(s.normal) + " normal-only, " + thousands(s.faulty) + " faulty-only " + plural.Word(s.faulty, "element", "elements")
	}
	return fmt.Sprintf("… %s more %s …\n%s common, %s normal-only, %s faulty-only elements",
		thousands(s.changes), plural.Word(s.changes, "change", "changes"),
		thousands(s.common), thousands(s.normal), thousands(s.faulty))
}

// endText marks the faulty run's last recorded event; Ended says why it is
// the last.
func (p *Picture) endText() string {
	_, faulty := p.names()
	return faulty + " trace ends here"
}

// emptyText notes a trace with no elements, or "" when both have some.
func (p *Picture) emptyText(v *view) string {
	normal, faulty := p.names()
	switch {
	case v.normalLen == 0 && v.faultyLen == 0:
		return "both traces are empty"
	case v.normalLen == 0:
		return "the " + normal + " trace is empty"
	case v.faultyLen == 0:
		return "the " + faulty + " trace is empty"
	}
	return ""
}

// wholeEmptyText is emptyText for the whole picture: with sections, each
// heading carries its own note instead.
func (p *Picture) wholeEmptyText(v *view) string {
	if len(p.Sections) > 0 {
		return ""
	}
	return p.emptyText(v)
}

// thousands formats n with comma separators: 1234567 → "1,234,567".
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3+1)
	if neg {
		out = append(out, '-')
	}
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// Shown returns the elements the abridged picture shows, in order, those
// of every section: what a legend has to explain.
func (p *Picture) Shown() nlr.Sequence {
	shown := nlr.Sequence{}
	for _, pt := range p.view().parts {
		for _, r := range pt.rows {
			if r.hidden == 0 {
				shown = append(shown, r.elem)
			}
			for j, c := range r.outer {
				if len(r.outer) <= maxOuter || j < maxOuter-1 || j == len(r.outer)-1 {
					shown = append(shown, c.elem)
				}
			}
		}
	}
	return shown
}

// loopNote explains a change whose normal side and faulty side start with a
// loop: "L0 ×12 → ×5" for one loop run a different number of times, and
// "L3 → L7: - update_x" (from Bodies) for two loops with different bodies.
// It is "" for any other change.
//
// A loop whose iterations change from some point on (L1^16 against L1^7,
// L0^9) is summarised: "L1 ×16 → ×7, then L0 ×9: in iterations 8–16, …".
func (p *Picture) loopNote(normal, faulty []row) string {
	a, b := firstLoop(normal), firstLoop(faulty)
	if a.Loop == nlr.NoLoop || b.Loop == nlr.NoLoop {
		return ""
	}
	if a.Loop == b.Loop {
		note := fmt.Sprintf("L%d ×%d → ×%d", a.Loop, a.Count, b.Count)
		if c, ok := nextLoop(faulty, b); ok && c.Loop != a.Loop && b.Count+c.Count == a.Count && p.Bodies != nil {
			if d := p.Bodies(a.Loop, c.Loop); d != "" {
				note += fmt.Sprintf(", then L%d ×%d: in iterations %d–%d, %s", c.Loop, c.Count, b.Count+1, a.Count, d)
			}
		}
		return note
	}
	if p.Bodies == nil {
		return ""
	}
	d := p.Bodies(a.Loop, b.Loop)
	if d == "" {
		return ""
	}
	return fmt.Sprintf("L%d → L%d: %s", a.Loop, b.Loop, d)
}

func firstLoop(rows []row) nlr.Element {
	for _, r := range rows {
		if r.hidden == 0 && r.elem.IsLoop() {
			return r.elem
		}
		if len(r.outer) > 0 && r.outer[0].elem.IsLoop() {
			return r.outer[0].elem
		}
	}
	return nlr.Element{Loop: nlr.NoLoop}
}

// nextLoop returns the element shown right after the loop e in rows, if it
// is a loop.
func nextLoop(rows []row, e nlr.Element) (nlr.Element, bool) {
	for i, r := range rows {
		if r.hidden == 0 && r.elem == e && i+1 < len(rows) && rows[i+1].hidden == 0 && rows[i+1].elem.IsLoop() {
			return rows[i+1].elem, true
		}
	}
	return nlr.Element{}, false
}
