package summary

import (
	"fmt"
	"slices"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/internal/parallel"
	"github.com/difftrace/difftrace/nlr"
	"github.com/difftrace/difftrace/trace"
)

// join makes the run's header of the parts' (Summary.Run) and puts every
// part's traces and classes in its symbols.
//
// The run's names are the parts' interned in part order: a process reads
// its processes' function tables in the order the whole run is read in
// (decode.Options.Part), so the names come out numbered as reading the
// whole run numbers them. When the parts name alike (one program, the
// usual case) nothing is renumbered.
func (s *Summary) join() error {
	p0 := s.Parts[0]
	h := decode.Header{Dir: p0.Run.Dir, Format: p0.Run.Format, Manifest: p0.Run.Manifest, TraceNotes: map[trace.ID]string{}}
	alike := true
	for _, p := range s.Parts[1:] {
		if p.NamesSum != p0.NamesSum || !slices.Equal(p.Run.Names, p0.Run.Names) {
			alike = false
			break
		}
	}
	// to[i][s] is part i's symbol s in the run's symbols; nil when they
	// are the same.
	to := make([][]trace.Symbol, len(s.Parts))
	if alike {
		h.Names = p0.Run.Names
	} else {
		table := trace.NewTable()
		for i, p := range s.Parts {
			m := make([]trace.Symbol, len(p.Run.Names))
			for sym, n := range p.Run.Names {
				if sym > 0 {
					m[sym] = table.Intern(n)
				}
			}
			to[i] = m
		}
		for sym := range table.Len() {
			h.Names = append(h.Names, table.Name(trace.Symbol(sym)))
		}
	}
	at := map[int]int{} // process index → position in h.Procs
	for i, p := range s.Parts {
		m := to[i]
		for _, f := range p.Run.Functions {
			if int(f) >= len(p.Run.Names) {
				return fmt.Errorf("%s: part %d names function %d of %d", s.Dir, i, f, len(p.Run.Names))
			}
			if m != nil {
				f = m[f]
			}
			h.Functions = append(h.Functions, f)
		}
		h.Notes = append(h.Notes, p.Run.Notes...)
		// A run read whole and summarised by traces may have a process's
		// threads in two parts.
		for _, hp := range p.Run.Procs {
			if j, ok := at[hp.Index]; ok {
				h.Procs[j].Threads = append(h.Procs[j].Threads, hp.Threads...)
				continue
			}
			at[hp.Index] = len(h.Procs)
			h.Procs = append(h.Procs, hp)
		}
		for j := range p.Traces {
			t := &p.Traces[j]
			if t.Note != "" {
				h.TraceNotes[t.ID] = t.Note
			}
			if m != nil {
				for k, sym := range t.End {
					t.End[k] = m[sym]
				}
			}
		}
		if m != nil {
			sym := func(x trace.Symbol) (trace.Symbol, bool) {
				if int(x) >= len(m) {
					return 0, false
				}
				return m[x], true
			}
			err := parallel.For(len(p.Classes), 0, func(c int) error {
				d, err := nlr.UnmarshalDiscoverer(p.Classes[c], sym)
				if err != nil {
					return fmt.Errorf("%s: part %d, class %d: %w", s.Dir, i, c, err)
				}
				if p.Classes[c], err = d.AppendBinary(nil); err != nil {
					return fmt.Errorf("%s: part %d, class %d: %w", s.Dir, i, c, err)
				}
				return nil
			})
			if err != nil {
				return err
			}
			p.Run.Names, p.Names, p.NamesSum = h.Names, len(h.Names), NamesSum(h.Names)
		}
	}
	slices.Sort(h.Functions)
	h.Functions = slices.Compact(h.Functions)
	s.Run = h
	return nil
}
