package trace

import (
	"path"
	"strings"
)

// Symbol is a function interned in a Table: a small integer standing for an
// image and a function name. Return (0) marks a function exit in an event
// sequence, as the ID 0 does in ParLOT.
type Symbol uint32

// Return is the event that marks a function exit.
const Return Symbol = 0

// Name is what a Symbol stands for: the image the function belongs to and
// its name in it.
//
// Image is the image's identity, not where it was found: Program for the
// traced program itself, whatever its path or file name, and the file name
// (no directory) of a shared library, e.g. "libmpi.so.40". So a run recorded
// from /home/a/build/app and one recorded from /tmp/x/app-bug name the same
// function alike, and their traces compare. The program's real path is kept
// in the run's metadata (decode.Process.Program) and shown in listings of
// that run. Two libraries with the same file name in different directories
// are taken for one image (a process rarely maps both).
//
// Func is the function as the programmer wrote it: a C++ or Fortran symbol
// is demangled ("mesh::Grid::step(double)"), a C symbol is itself. Linked
// keeps the symbol as the linker saw it ("_ZN4mesh4Grid4stepEd") when it
// differs from Func, and Short is Func without parameter lists and template
// arguments ("mesh::Grid::step") when that is shorter; Untemplated keeps
// the parameters but drops template arguments ("mesh::Field::at(int, int)
// const"), to tell overloads apart briefly, and Templated keeps the
// template arguments but drops parameters and return type
// ("solver::Solver::sweep<0, 1>"), to tell instances of one template apart.
// decode fills them; a Name built with Func alone is a C name.
type Name struct {
	Image       string
	Func        string
	Linked      string
	Short       string
	Untemplated string
	Templated   string
}

// Symbol returns the name as linked: what a ParLOT function table and the
// ELF symbol table hold.
func (n Name) Symbol() string {
	if n.Linked != "" {
		return n.Linked
	}
	return n.Func
}

// Brief returns the name without parameter lists and template arguments,
// for tables and pictures.
func (n Name) Brief() string {
	if n.Short != "" {
		return n.Short
	}
	return n.Func
}

// Program is the Image of every function of the traced program (the main
// executable) in names decoded from a run.
const Program = "<program>"

// String returns "image:function", or just the function for the program's
// own functions (and a Name without an image): the short form for output
// that speaks of several runs. A listing of one run names the program
// instead (decode.Run.Name).
func (n Name) String() string { return n.Qualify(n.Func) }

// Qualify returns "image:fn" as String does, with fn standing for the
// function (a Table's Label, say).
func (n Name) Qualify(fn string) string {
	if n.Image == "" || n.Image == Program {
		return fn
	}
	return path.Base(n.Image) + ":" + fn
}

// Table interns Names into Symbols. Symbols are numbered 1, 2, … in the order
// names are first interned; 0 is Return. One table is shared by every trace
// of a comparison, so equal names are equal symbols across processes and
// runs. A Table is not safe for concurrent Intern calls.
type Table struct {
	names []Name
	index map[Name]Symbol
	// briefs holds the full name of the first function of each image with
	// a brief (or untemplated) name; ambiguous marks the names that stand
	// for several (overloads, template instances): Label shows those in a
	// longer form. Symbols that differ only as linked (a C++ constructor's
	// complete and base object variants) are one name.
	briefs     map[[2]string]string
	ambiguous  map[[2]string]bool
	signatures bool
}

// NewTable returns an empty table holding only Return.
func NewTable() *Table {
	return &Table{names: []Name{{Func: "<return>"}}, index: map[Name]Symbol{}, briefs: map[[2]string]string{}, ambiguous: map[[2]string]bool{}}
}

// Intern returns the symbol of n, adding it if it is new.
func (t *Table) Intern(n Name) Symbol {
	if s, ok := t.index[n]; ok {
		return s
	}
	s := Symbol(len(t.names))
	t.names = append(t.names, n)
	t.index[n] = s
	for _, form := range [3]string{n.Brief(), "\x00" + n.Untemplated, "\x01" + n.Templated} {
		b := [2]string{n.Image, form}
		if f, ok := t.briefs[b]; !ok {
			t.briefs[b] = n.Func
		} else if f != n.Func {
			t.ambiguous[b] = true
		}
	}
	return s
}

// ShowSignatures makes Label return full names (parameter lists and
// template arguments included) for every symbol.
func (t *Table) ShowSignatures(on bool) { t.signatures = on }

// Label returns how tables and pictures name s, as the source writes it
// and no longer than needed to tell it from the other functions of its
// image: its brief name ("mesh::Grid::step"); when another function has the
// same brief name, its name with parameters but without template arguments
// or return type ("mesh::Field::at(int, int) const", an overload); when
// that is shared too (two instances of one template), its name with
// template arguments but without parameters ("Solver::sweep<0, 1>"); else,
// or when ShowSignatures is on, its full name.
func (t *Table) Label(s Symbol) string {
	n := t.names[s]
	switch {
	case t.signatures || n.Short == "":
		return n.Func
	case !t.ambiguous[[2]string{n.Image, n.Short}]:
		return n.Short
	case n.Untemplated != "" && !t.ambiguous[[2]string{n.Image, "\x00" + n.Untemplated}]:
		return withoutReturnType(n.Untemplated, n.Short)
	case n.Templated != "" && !t.ambiguous[[2]string{n.Image, "\x01" + n.Templated}]:
		return n.Templated
	}
	return n.Func
}

// withoutReturnType drops from u, a function's name with its parameters,
// the return type a template function's demangled name begins with ("void
// Solver::sweep(A&, int)" is "Solver::sweep(A&, int)"), found before short,
// its name without parameters.
func withoutReturnType(u, short string) string {
	if i := strings.IndexByte(short, '@'); i >= 0 {
		short = short[:i]
	}
	if i := strings.Index(u, short+"("); i > 0 {
		return u[i:]
	}
	return u
}

// Lookup returns the symbol of n and whether it is in the table.
func (t *Table) Lookup(n Name) (Symbol, bool) {
	s, ok := t.index[n]
	return s, ok
}

// Name returns what s stands for. Return's name has the function "<return>".
func (t *Table) Name(s Symbol) Name { return t.names[s] }

// Len returns the number of symbols including Return, so valid symbols are
// 0 ≤ s < Len(); a per-symbol slice of that length can be indexed by Symbol.
func (t *Table) Len() int { return len(t.names) }
