// Package summary holds the summaries of a run's traces that difftrace
// summarize writes and rank reads in place of the traces: per trace, what
// the analysis keeps of it once it is decoded (the calls each filter kept,
// the pass-1 nested-loop representation under each filter and K, the call
// stack it ended in), with identical summaries stored once (classes).
//
// A summary directory holds one part per process that wrote it,
// part-<i>-of-<n>.dts: summarize runs under the user's MPI launcher, each
// launcher process summarising its share of the traces, so that only
// summaries cross the shared filesystem. Each part holds what the run says
// about the part's processes (decode.Header: their files, the names of
// their function tables, the notes), part 0 also the run's manifest, so
// that no process reads more of the run than its share. Open reads every
// part, checks that they belong together and joins their headers into the
// run's.
//
// A part is the magic "difftrace-summary\n", a version byte, a gob
// encoding of Part, and a CRC-32 (Castagnoli, big-endian) of everything
// before it.
package summary

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/internal/atomicfile"
	"github.com/difftrace/difftrace/internal/input"
	"github.com/difftrace/difftrace/internal/param"
	"github.com/difftrace/difftrace/trace"
)

const (
	magic   = "difftrace-summary\n"
	version = 2
)

// castagnoli and partRE are made when first needed: every difftrace process
// starts with this package, and few read summaries.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// Grid is what a summary was computed for: the filters (by their spec,
// filters.Filter.Name), the values of K, and whether polling counted.
type Grid struct {
	Filters      []string
	Ks           []int
	ExactPolling bool
}

// Part is one process's share of a summary.
type Part struct {
	Index, Of int
	Grid      Grid
	// Run is what the run says about the part's processes: their files,
	// the names their function tables intern (Run.Names, in the symbols
	// of the part's traces and classes) and the notes on them. Only part 0
	// holds the run's manifest (Run.Manifest), and the notes on the run as
	// a whole.
	Run decode.Header
	// Names counts Run.Names and NamesSum is a checksum of them, which
	// Open checks.
	Names    int
	NamesSum uint32
	Traces   []Trace
	// Classes are the distinct pass-1 NLRs (nlr.Discoverer.AppendBinary)
	// of the part's traces, in the part's symbols.
	Classes [][]byte
}

// Trace is the summary of one trace.
type Trace struct {
	ID trace.ID
	// Kept[f] counts the calls filter Grid.Filters[f] kept.
	Kept []uint64
	// Classes[f*len(Ks)+k] indexes Part.Classes: the trace's pass-1 NLR
	// under filter f and K Grid.Ks[k].
	Classes []int32
	// End is the call stack the trace ended in, outermost first, in the
	// part's symbols (the run's, once Open has joined the parts).
	End []trace.Symbol
	// Note is what reading the trace found against the run's manifest
	// (decode.Run.TraceNotes), if anything.
	Note string
}

// NamesSum returns the checksum Part.NamesSum keeps of a run's names.
func NamesSum(names []trace.Name) uint32 {
	var b bytes.Buffer
	for _, n := range names {
		for _, s := range []string{n.Image, n.Func, n.Linked, n.Short, n.Untemplated} {
			b.WriteString(s)
			b.WriteByte(0)
		}
	}
	return crc32.Checksum(b.Bytes(), castagnoli())
}

// PartName returns the file name of part i of n.
func PartName(i, n int) string { return fmt.Sprintf("part-%d-of-%d.dts", i, n) }

var partRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^part-(\d+)-of-(\d+)\.dts$`) })

// ParsePartName reports whether name is the file name of a part, and which:
// only the name PartName gives (no leading zeros, so no two names of one
// part). n is as the name says: Open bounds it by the files present
// before it trusts it.
func ParsePartName(name string) (i, n int, ok bool) {
	m := partRE().FindStringSubmatch(name)
	if m == nil {
		return 0, 0, false
	}
	i, err1 := strconv.Atoi(m[1])
	n, err2 := strconv.Atoi(m[2])
	if err1 != nil || err2 != nil || name != PartName(i, n) {
		return 0, 0, false
	}
	return i, n, true
}

// Encode returns the file contents of p.
func Encode(p *Part) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(magic)
	b.WriteByte(version)
	if err := gob.NewEncoder(&b).Encode(p); err != nil {
		return nil, fmt.Errorf("summary: encoding part %d of %d: %w", p.Index, p.Of, err)
	}
	return binary.BigEndian.AppendUint32(b.Bytes(), crc32.Checksum(b.Bytes(), castagnoli())), nil
}

// Decode reads a part from the file contents b; name is the file's name,
// for errors, which give the byte offset where the file went wrong.
func Decode(name string, b []byte) (*Part, error) {
	if len(b) < len(magic)+1+4 || string(b[:len(magic)]) != magic {
		return nil, fmt.Errorf("%s: byte 0: not a difftrace summary part (it does not begin %q; summarize the run again)", name, magic)
	}
	if v := b[len(magic)]; v != version {
		return nil, fmt.Errorf("%s: byte %d: a summary of version %d, this difftrace reads version %d: summarize the run again with this version", name, len(magic), v, version)
	}
	body, sum := b[:len(b)-4], binary.BigEndian.Uint32(b[len(b)-4:])
	if got := crc32.Checksum(body, castagnoli()); got != sum {
		return nil, fmt.Errorf("%s: the file is damaged or cut short (the checksum at byte %d is %08x, the bytes before it sum to %08x): summarize the run again", name, len(body), sum, got)
	}
	p := new(Part)
	rd := bytes.NewReader(body[len(magic)+1:])
	if err := gob.NewDecoder(rd).Decode(p); err != nil {
		return nil, fmt.Errorf("%s: byte %d: reading the summary: %w (summarize the run again)", name, len(body)-rd.Len(), err)
	}
	if rd.Len() > 0 {
		return nil, fmt.Errorf("%s: byte %d: %d bytes after the summary's end (summarize the run again)", name, len(body)-rd.Len(), rd.Len())
	}
	return p, nil
}

// Is reports whether dir holds a summary (any part file).
func Is(dir string) bool {
	m, _ := filepath.Glob(filepath.Join(dir, "part-*-of-*.dts"))
	for _, f := range m {
		if _, _, ok := ParsePartName(filepath.Base(f)); ok {
			return true
		}
	}
	return false
}

// Summary is a whole summary: every part of it, read and checked, and
// joined: Run is the run's header, and every part's traces and classes are
// in its symbols.
type Summary struct {
	Dir   string
	Grid  Grid
	Run   decode.Header
	Parts []*Part
}

// Open reads the summary in dir: every part, which must all be there, of
// one summary (the same number of parts, grid and names), each trace once.
func Open(dir string) (*Summary, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reading the summary: %w", err)
	}
	of := -1
	var names []string
	for _, e := range ents {
		_, n, ok := ParsePartName(e.Name())
		if !ok {
			continue
		}
		if of >= 0 && n != of {
			return nil, fmt.Errorf("%s: holds parts of summaries made by %d and by %d processes; remove the directory and summarize the run again", dir, of, n)
		}
		of = n
		names = append(names, e.Name())
	}
	if of < 0 {
		return nil, fmt.Errorf("%s: no summary parts (part-<i>-of-<n>.dts) in the directory; give a run, or a directory difftrace summarize wrote", dir)
	}
	// A summary of n parts has n files: the count a name claims is
	// trusted only that far (a name may say a billion).
	if of > len(names) {
		var missing []int
		for i := 0; i < of && len(missing) < 8; i++ {
			if !slices.Contains(names, PartName(i, of)) {
				missing = append(missing, i)
			}
		}
		return nil, fmt.Errorf("%s: the name says %d parts, the directory holds %d (parts %s missing); a summary is complete only with all its parts (a summarize process failed or is still writing): run summarize again with the same number of processes",
			filepath.Join(dir, names[0]), of, len(names), listParts(missing, of-len(names)))
	}
	s := &Summary{Dir: dir, Parts: make([]*Part, of)}
	for _, name := range names {
		i, _, _ := ParsePartName(name)
		if i >= of {
			return nil, fmt.Errorf("%s: part %d of %d cannot be; remove the directory and summarize the run again", filepath.Join(dir, name), i, of)
		}
		b, err := input.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("reading the summary: %w", err)
		}
		p, err := Decode(filepath.Join(dir, name), b)
		if err != nil {
			return nil, err
		}
		if p.Index != i || p.Of != of {
			return nil, fmt.Errorf("%s: the file says it is part %d of %d; it was renamed, or is damaged", filepath.Join(dir, name), p.Index, p.Of)
		}
		s.Parts[i] = p
	}
	// Every part is there: of names, each of a part below of, no two
	// alike.
	p0 := s.Parts[0]
	s.Grid = p0.Grid
	seen := make(map[trace.ID]int)
	for i, p := range s.Parts {
		file := filepath.Join(dir, PartName(i, of))
		if !sameGrid(p.Grid, s.Grid) {
			return nil, fmt.Errorf("%s: part %d was summarised with other filters or K than part 0; summarize the run again", file, i)
		}
		if len(p.Run.Names) != p.Names || NamesSum(p.Run.Names) != p.NamesSum {
			return nil, fmt.Errorf("%s: part %d is damaged (its names do not match their checksum); summarize the run again", file, i)
		}
		if p.Run.Dir != p0.Run.Dir || p.Run.Format != p0.Run.Format {
			return nil, fmt.Errorf("%s: part %d summarises the run %s, part 0 the run %s; remove the directory and summarize the run again", file, i, p.Run.Dir, p0.Run.Dir)
		}
		nf, nc := len(s.Grid.Filters), len(s.Grid.Filters)*len(s.Grid.Ks)
		for x, t := range p.Traces {
			if j, dup := seen[t.ID]; dup {
				return nil, fmt.Errorf("%s: trace record %d: trace %s is in parts %d and %d; summarize the run again", file, x, t.ID, j, i)
			}
			seen[t.ID] = i
			if len(t.Kept) != nf || len(t.Classes) != nc {
				return nil, fmt.Errorf("%s: trace record %d: the summary of trace %s is incomplete (%d call counts and %d NLRs, want %d and %d); summarize the run again", file, x, t.ID, len(t.Kept), len(t.Classes), nf, nc)
			}
			for _, c := range t.Classes {
				if c < 0 || int(c) >= len(p.Classes) {
					return nil, fmt.Errorf("%s: trace record %d: trace %s names NLR %d of %d; summarize the run again", file, x, t.ID, c, len(p.Classes))
				}
			}
			for _, sym := range t.End {
				if int(sym) >= p.Names {
					return nil, fmt.Errorf("%s: trace record %d: trace %s ended in function %d of %d; summarize the run again", file, x, t.ID, sym, p.Names)
				}
			}
		}
	}
	if err := s.join(); err != nil {
		return nil, err
	}
	var lacking []string
	want := 0
	for _, hp := range s.Run.Procs {
		for _, ht := range hp.Threads {
			want++
			if id := (trace.ID{Proc: hp.Index, Thread: ht.Thread}); len(lacking) < 8 {
				if _, ok := seen[id]; !ok {
					lacking = append(lacking, id.String())
				}
			}
		}
	}
	if len(lacking) > 0 || len(seen) != want {
		return nil, fmt.Errorf("%s: the parts summarise %d traces, the run has %d (missing: %v); summarize the run again", dir, len(seen), want, lacking)
	}
	return s, nil
}

// listParts says which parts are missing: "3, 5", or "0, 1, 2, … (999999999
// in all)" when there are more than those listed.
func listParts(some []int, all int) string {
	s := make([]string, len(some))
	for i, p := range some {
		s[i] = strconv.Itoa(p)
	}
	if all > len(some) {
		return strings.Join(s, ", ") + fmt.Sprintf(", … (%d in all)", all)
	}
	return strings.Join(s, ", ")
}

func sameGrid(a, b Grid) bool {
	return slices.Equal(a.Filters, b.Filters) && slices.Equal(a.Ks, b.Ks) && a.ExactPolling == b.ExactPolling
}

// Where returns the position of filter spec and K in the grid's
// Trace.Classes, or an error that says how to summarise for them.
func (s *Summary) Where(filter string, k int) (f, c int, err error) {
	f = slices.Index(s.Grid.Filters, filter)
	ki := slices.Index(s.Grid.Ks, k)
	if f < 0 || ki < 0 {
		return 0, 0, param.Advise("%s: the summary has no filter %s at K = %d (it has filters %v, K %v); summarize the run again with {the grid's filters and K} naming it, or give the run itself",
			s.Dir, filter, k, s.Grid.Filters, s.Grid.Ks)
	}
	return f, f*len(s.Grid.Ks) + ki, nil
}

// Write writes p into dir as its part file, whole or not at all (a reader
// never sees half a part), making dir if need be.
func Write(dir string, p *Part) error {
	b, err := Encode(p)
	if err != nil {
		return err
	}
	if err := atomicfile.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	f, err := atomicfile.Create(filepath.Join(dir, PartName(p.Index, p.Of)))
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(b); err != nil {
		return err
	}
	return f.Commit()
}
