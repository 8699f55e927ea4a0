package decode

import (
	"path"
	"slices"
	"strings"

	"github.com/difftrace/difftrace/symname"
	"github.com/difftrace/difftrace/trace"
)

// How recorded function names become trace.Names.
//
// A recording names each function by the path of its image. Paths say where
// the program was built or run, which two runs of a comparison rarely
// share (a normal run of /home/a/build/app, a faulty one of /tmp/x/app-bug),
// so Open interns images by identity instead (trace.Name):
//
//   - the program's own image is trace.Program: the first image of a ParLOT
//     function table (.info), the executable of a uftrace session;
//   - any other image is its file name ("libmpi.so.40"): two libraries with
//     the same file name in different directories are one image;
//   - uftrace's "?" (an address no mapped image covers) stays "?".
//
// Each Process keeps its program's path as recorded (Process.Program), and
// Run.Name shows the program's file name in place of trace.Program, so a
// listing of one run still reads "oddeven:main".

// imageID returns the identity of the image at p in a process whose program
// is at program.
func imageID(p, program string) string {
	switch {
	case p == program && program != "":
		return trace.Program
	case p == "?" || p == "":
		return p
	}
	return path.Base(p)
}

// canonical returns n, named by its linked symbol, with its image path
// replaced by the image's identity and its function demangled (Written).
func canonical(n trace.Name, program string) trace.Name {
	return symname.Written(imageID(n.Image, program), n.Symbol())
}

// Namer names symbols: a *trace.Table gives the interned names, a *Run the
// names as a listing of that run shows them.
type Namer interface {
	Name(s trace.Symbol) trace.Name
	// Label is how tables show the function of s (trace.Table.Label).
	Label(s trace.Symbol) string
}

// programName returns what listings of the run call the program: the file
// name of its processes' program, the distinct ones joined by "|" in process
// order when they differ (an MPMD launch), else that of the manifest's
// command, else "program".
func (r *Run) programName() string {
	var names []string
	for _, p := range r.Procs {
		if p.Program == "" {
			continue
		}
		if b := path.Base(p.Program); !slices.Contains(names, b) {
			names = append(names, b)
		}
	}
	if len(names) == 0 && r.Manifest != nil && len(r.Manifest.Command) > 0 && r.Manifest.Command[0] != "" {
		names = append(names, path.Base(r.Manifest.Command[0]))
	}
	if len(names) == 0 {
		return "program"
	}
	return strings.Join(names, "|")
}

// ProgramName returns what listings of this run call the traced program:
// its file name as recorded (see programName).
func (r *Run) ProgramName() string { return r.progName }

// Name returns the name of s as a listing of this run shows it: the program's
// functions are in the image named by ProgramName (e.g. "oddeven"), not
// trace.Program. Return's name is the table's.
func (r *Run) Name(s trace.Symbol) trace.Name {
	n := r.Symbols.Name(s)
	if s != trace.Return && n.Image == trace.Program {
		n.Image = r.progName
	}
	return n
}

// Label returns how tables and listings of this run show the function of s
// (trace.Table.Label).
func (r *Run) Label(s trace.Symbol) string { return r.Symbols.Label(s) }
