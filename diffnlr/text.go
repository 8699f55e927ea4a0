package diffnlr

import (
	"bufio"
	"bytes"
	"io"

	"github.com/difftrace/difftrace/trace"
)

// ANSI styles of the text diff: the picture's colours, blue for the normal
// run and red for the faulty run.
const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiDim    = "\x1b[2m"
	ansiBlue   = "\x1b[34m"
	ansiRed    = "\x1b[31m"
	ansiCyan   = "\x1b[36m"
	ansiMarker = "\x1b[1;31m"
)

// WriteText prints the diff like a unified diff: a "--- normal" and a
// "+++ faulty" header, then one element per line, "  " before a common
// element, "- " before one only in the normal run and "+ " before one only
// in the faulty run, abridged as p.Abridge says. When the faulty trace was
// cut short (p.Ended), its last event is followed by
// "  <- faulty trace ends here (Ended)". With color, lines get ANSI colours (blue
// for the normal run, red for the faulty run, as in the picture); callers
// pass true only when writing to a terminal or when asked. Each section of a
// picture with Sections starts with a "@@ title @@" line.
func (p *Picture) WriteText(w io.Writer, color bool) error {
	v := p.view()
	bw := bufio.NewWriter(w)
	// Names and notes come from the traces: escaped, so that a name
	// cannot move the cursor or colour the terminal (see trace.Printable).
	line := func(style, text string) {
		text = trace.Printable(text)
		if color && style != "" {
			bw.WriteString(style)
			bw.WriteString(text)
			bw.WriteString(ansiReset)
		} else {
			bw.WriteString(text)
		}
	}
	normal, faulty := p.names()
	for _, n := range p.Notes {
		line(ansiBold, n)
		bw.WriteByte('\n')
	}
	line(ansiBold, "--- "+normal)
	bw.WriteByte('\n')
	line(ansiBold, "+++ "+faulty)
	bw.WriteByte('\n')
	for k, pt := range v.parts {
		if pt.head != "" {
			h := pt.head
			if pt.note != "" {
				h += ": " + pt.note
			}
			line(ansiBold, "@@ "+h+" @@")
			bw.WriteByte('\n')
			continue
		}
		if pt.skip != nil {
			line(ansiCyan, "@@ "+skipText(pt.skip)+" @@")
			bw.WriteByte('\n')
			continue
		}
		prefix, style := "  ", ""
		switch pt.kind {
		case NormalOnly:
			prefix, style = "- ", ansiBlue
		case FaultyOnly:
			prefix, style = "+ ", ansiRed
		}
		note := ""
		if pt.kind == FaultyOnly && k > 0 && v.parts[k-1].kind == NormalOnly {
			note = p.loopNote(v.parts[k-1].rows, pt.rows)
		}
		for j, r := range pt.rows {
			if r.hidden > 0 {
				line(ansiDim, prefix+p.rowText(pt.kind, r))
			} else {
				line(style, prefix+p.label(r.elem))
			}
			if j == 0 && note != "" {
				bw.WriteString("  ")
				line(ansiDim, "("+note+")")
			}
			if r.last {
				bw.WriteString("  ")
				line(ansiMarker, "<- "+p.endText()+" ("+p.Ended+")")
			}
			bw.WriteByte('\n')
		}
	}
	if s := p.wholeEmptyText(&v); s != "" {
		line(ansiDim, "  ("+s+")")
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// TextLines returns how many lines WriteText writes.
func (p *Picture) TextLines() int {
	var c lineCounter
	p.WriteText(&c, false)
	return int(c)
}

// lineCounter counts the newlines written to it.
type lineCounter int

func (c *lineCounter) Write(b []byte) (int, error) {
	*c += lineCounter(bytes.Count(b, []byte{'\n'}))
	return len(b), nil
}
