package record

import (
	"debug/elf"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/difftrace/difftrace/filters"
	"github.com/difftrace/difftrace/internal/param"
	"github.com/difftrace/difftrace/rundir"
	"github.com/difftrace/difftrace/symname"
	"github.com/difftrace/difftrace/trace"
)

// A selection is what a selective recording (capture --only SPEC) asks
// uftrace for: the calls a filter keeps, and nothing else.
//
// uftrace selects at record time. Library calls (MPI_Send,
// GOMP_critical_start, memcpy) are caught where the program calls them, at
// its procedure linkage table, whatever else is instrumented; so a
// selection of library calls patches no function of the program at all
// (no -P; a program built with -pg still calls uftrace's mcount from each
// of its functions, which records nothing). Each selected function is an
// opt-in filter of depth 1 (-F NAME@PLT,depth=1): uftrace records the call
// and none of its callees, unless a callee is selected too, and calls
// nothing else. Functions of the program itself that the filter keeps (a
// cust=REGEXP naming them) are patched (-P NAME) and selected the same way.
//
// No function of the program is recorded for the call stack: the traces
// hold the selected calls alone, as a filter leaves them, so a first
// difference is placed by loop iterations but not by the program's
// functions it lies in. (uftrace's caller filter, -C, would keep the
// callers, but only by patching every function of the program: the cost
// the selection is there to avoid.)
type selection struct {
	spec string
	keep *filters.Filter
	lib  []string // the imported functions the filter keeps, as linked
	own  []string // the program's functions the filter keeps, as linked
}

// selectCalls reads the program's symbols and returns the selection of the
// filter spec, nil when spec keeps every call ("", "all"). A spec that keeps
// no function the program calls or defines is refused: the traces would be
// empty.
func selectCalls(prog, spec string) (*selection, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return nil, nil
	}
	f, err := filters.Parse(spec)
	if err != nil {
		return nil, param.Wrap("only", err)
	}
	if keepsEverything(f) {
		return nil, nil // a full recording
	}
	e, err := elf.Open(prog)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", prog, err)
	}
	defer e.Close()
	s := &selection{spec: f.Name(), keep: f}
	imports, err := e.DynamicSymbols()
	if err != nil && !errors.Is(err, elf.ErrNoSymbols) {
		return nil, fmt.Errorf("%s: reading its dynamic symbols: %w", prog, err)
	}
	var called []string
	for _, sym := range imports {
		t := elf.ST_TYPE(sym.Info)
		if sym.Section != elf.SHN_UNDEF || sym.Name == "" || (t != elf.STT_FUNC && t != elf.STT_NOTYPE) {
			continue
		}
		called = append(called, sym.Name)
		if f.KeepName(symname.Written("", sym.Name)) {
			s.lib = append(s.lib, sym.Name)
		}
	}
	syms, _ := e.Symbols()
	for _, sym := range syms {
		if elf.ST_TYPE(sym.Info) != elf.STT_FUNC || sym.Section == elf.SHN_UNDEF || sym.Name == "" {
			continue
		}
		if f.KeepName(symname.Written(trace.Program, sym.Name)) {
			s.own = append(s.own, sym.Name)
		}
	}
	slices.Sort(s.lib)
	s.lib = slices.Compact(s.lib)
	slices.Sort(s.own)
	s.own = slices.Compact(s.own)
	if len(s.lib)+len(s.own) == 0 {
		slices.Sort(called)
		called = slices.Compact(called)
		return nil, param.Errorf("only", spec, "%s neither calls nor defines a function this filter keeps, so the traces would be empty; the library functions it calls are %s",
			filepath.Base(prog), listSome(called, 12))
	}
	return s, nil
}

// keepsEverything says whether f keeps every call ("all", or a spec of
// modifiers alone): it keeps a name no function has.
func keepsEverything(f *filters.Filter) bool {
	return f.KeepName(trace.Name{Func: "\x00"})
}

// listSome lists names, the first n of them and how many more.
func listSome(names []string, n int) string {
	if len(names) == 0 {
		return "none"
	}
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

// keeps says whether the selection recorded calls of the function n (a
// name as the recording gives it); a nil selection recorded every call.
func (s *selection) keeps(n trace.Name) bool {
	return s == nil || s.keep.KeepName(symname.Written(n.Image, n.Symbol()))
}

// recorded describes the selection for run.json.
func (s *selection) recorded() *rundir.Recorded {
	if s == nil {
		return nil
	}
	var calls []string
	for _, n := range append(slices.Clone(s.lib), s.own...) {
		calls = append(calls, symname.Written("", n).Func)
	}
	return &rundir.Recorded{Filter: s.spec, Calls: calls, Stack: []string{}}
}

// args are the options of uftrace record that make the selection, for the
// program prog: --force (a program built without -pg has nothing uftrace
// would otherwise trace), the selected functions as filters of depth 1, and
// the program's own selected functions patched.
func (s *selection) args(prog string) []string {
	var fs []string
	for _, n := range s.lib {
		fs = append(fs, uftracePattern(n)+"@PLT,depth=1")
	}
	var ps []string
	mod := filepath.Base(prog)
	if strings.ContainsAny(mod, ",;@") {
		mod = "" // not a module name uftrace can parse: search every image
	}
	for _, n := range s.own {
		p := uftracePattern(n)
		ps = append(ps, p)
		if mod != "" {
			p += "@" + mod
		}
		fs = append(fs, p+",depth=1")
	}
	args := []string{"--force", "-F", strings.Join(fs, ";")}
	if len(ps) > 0 {
		args = append(args, "-P", strings.Join(ps, ";"))
	}
	return args
}

// uftraceRegexChars are the characters that make uftrace take a pattern for
// a regular expression rather than a name (its REGEX_CHARS).
const uftraceRegexChars = `.?*+-^$|()[]{}`

// uftracePattern is the pattern by which uftrace selects exactly the
// function name: the name itself, which uftrace compares as a string, or,
// when it holds a character of a regular expression (a clone, "f.part.0"),
// the name escaped and anchored (a POSIX extended expression).
func uftracePattern(name string) string {
	if !strings.ContainsAny(name, uftraceRegexChars) {
		return name
	}
	var b strings.Builder
	b.WriteByte('^')
	for _, r := range name {
		if strings.ContainsRune(uftraceRegexChars+`\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('$')
	return b.String()
}
