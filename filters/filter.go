package filters

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/difftrace/difftrace/trace"
)

// Filter is a parsed filter spec: the union of its keep-rules, minus PLT
// stubs when the spec says plt, with returns dropped unless it says ret.
// A spec with no keep-rule ("plt", "ret") keeps every function.
type Filter struct {
	name     string
	presets  []*preset
	custom   []*regexp.Regexp
	dropPLT  bool
	returns  bool
	keepsAll bool
}

// SpecError is a filter spec that cannot be parsed: the spec, the term at
// fault, and why.
type SpecError struct {
	Spec   string // the spec as given ("" when it is empty)
	Term   string // the term at fault, if one is
	Reason string // what is wrong and what would do
	Err    error  // the cause (a *syntax.Error for a bad regular expression), if any
}

func (e *SpecError) Error() string {
	if e.Spec == "" {
		return "filter: " + e.Reason
	}
	return fmt.Sprintf("filter %q: %s", e.Spec, e.Reason)
}

func (e *SpecError) Unwrap() error { return e.Err }

// Parse reads a filter spec: terms joined by "+", each a preset name (all,
// mpi, mpi.col, mpi.sr, mpi.int, omp, omp.crit, omp.mutex, mem, net, poll,
// str), plt (drop PLT stubs), ret (keep the returns of kept calls) or
// cust=REGEXP (a Go regular expression matched anywhere in the function
// name). A "+" inside a custom regexp is part of it unless the text after it
// is itself a term: "cust=a+b" is one regexp, "cust=a+mpi" is two terms.
func Parse(spec string) (*Filter, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return nil, &SpecError{Reason: "empty spec; " + validHint()}
	}
	f := &Filter{name: spec}
	for _, term := range splitTerms(spec) {
		switch {
		case term == modPLT:
			f.dropPLT = true
		case term == modReturns:
			f.returns = true
		case strings.HasPrefix(term, custPrefix):
			expr := term[len(custPrefix):]
			if expr == "" {
				return nil, &SpecError{Spec: spec, Term: term, Reason: "cust= needs a regular expression, e.g. cust=^CPU_Exec$"}
			}
			re, err := regexp.Compile(expr)
			if err != nil {
				return nil, &SpecError{Spec: spec, Term: term, Err: err,
					Reason: fmt.Sprintf("bad regular expression %q: %s; write a Go (RE2) expression, e.g. cust=^CPU_Exec$", expr, unwrapSyntax(err))}
			}
			f.custom = append(f.custom, re)
		default:
			p, ok := lookupPreset(term)
			if !ok {
				if term == "" {
					return nil, &SpecError{Spec: spec, Reason: "empty term (a stray +); " + validHint()}
				}
				return nil, &SpecError{Spec: spec, Term: term, Reason: fmt.Sprintf("unknown filter %q; %s", term, validHint())}
			}
			f.presets = append(f.presets, p)
			if p.name == "all" {
				f.keepsAll = true
			}
		}
	}
	if len(f.presets) == 0 && len(f.custom) == 0 {
		f.keepsAll = true
	}
	return f, nil
}

// splitTerms splits a spec at "+", gluing back onto a custom regexp every
// piece that is not itself a term.
func splitTerms(spec string) []string {
	pieces := strings.Split(spec, "+")
	terms := make([]string, 0, len(pieces))
	for _, p := range pieces {
		if n := len(terms); n > 0 && strings.HasPrefix(terms[n-1], custPrefix) && !isTerm(p) {
			terms[n-1] += "+" + p
			continue
		}
		terms = append(terms, p)
	}
	return terms
}

func isTerm(s string) bool {
	if s == modPLT || s == modReturns || strings.HasPrefix(s, custPrefix) {
		return true
	}
	_, ok := lookupPreset(s)
	return ok
}

// unwrapSyntax shortens a regexp error to its reason, on one line: the
// offending text it quotes may hold control characters.
func unwrapSyntax(err error) string {
	msg := strings.TrimPrefix(err.Error(), "error parsing regexp: ")
	if q := strconv.Quote(msg); q[1:len(q)-1] != msg {
		return q
	}
	return msg
}

func validHint() string {
	return "valid terms: " + strings.Join(presetNames(), ", ") + " (join with +, e.g. mpi+omp.crit+cust=CPU_Exec)"
}

// MustParse is Parse for specs known to be valid, such as constants in
// tests and defaults; it panics on an error.
func MustParse(spec string) *Filter {
	f, err := Parse(spec)
	if err != nil {
		panic(err)
	}
	return f
}

// Name returns the spec as written, the filter's name in every table.
func (f *Filter) Name() string { return f.name }

// String returns the filter's name.
func (f *Filter) String() string { return f.name }

// KeepsReturns reports whether the filter keeps the returns of kept calls.
func (f *Filter) KeepsReturns() bool { return f.returns }

// Keep reports whether the filter keeps calls of the function named fn, in
// an image it does not know (see KeepName).
func (f *Filter) Keep(fn string) bool { return f.KeepName(trace.Name{Func: fn}) }

// KeepName reports whether the filter keeps calls of the function n. The
// image matters to mpi.int only: every function of an MPI library image
// that is not itself MPI API counts as an internal. Presets and custom
// regexps see the name as written (demangled, with and without parameters:
// "mesh::Grid::step(double)", "mesh::Grid::step") and as linked
// ("_ZN4mesh4Grid4stepEd"), so a spec written with either keeps the call.
func (f *Filter) KeepName(n trace.Name) bool {
	forms := [4]string{n.Func, n.Short, n.Untemplated, n.Linked}
	if f.dropPLT && (IsPLTStub(n.Func) || IsPLTStub(n.Symbol())) {
		return false
	}
	if f.keepsAll {
		return true
	}
	for _, fn := range forms {
		if fn == "" {
			continue
		}
		base := baseName(fn)
		for _, p := range f.presets {
			if p.keep(n.Image, base) {
				return true
			}
		}
		for _, re := range f.custom {
			if re.MatchString(fn) {
				return true
			}
		}
	}
	return false
}

// Presets returns each valid term of a spec with a one-line description,
// for help texts.
func Presets() [][2]string {
	out := make([][2]string, 0, len(presets())+3)
	for _, p := range presets() {
		out = append(out, [2]string{p.name, p.doc})
	}
	return append(out,
		[2]string{modPLT, "drop PLT stubs (foo@plt, .plt, .plt.got, .plt.sec)"},
		[2]string{modReturns, "keep the returns of kept calls (returns are dropped otherwise)"},
		[2]string{custPrefix + "REGEXP", "functions whose name matches a Go regular expression"})
}
