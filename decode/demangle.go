package decode

import (
	"strings"

	"github.com/ianlancetaylor/demangle"

	"github.com/difftrace/difftrace/trace"
)

// Written returns the trace.Name of the function whose symbol, as the
// linker saw it, is sym in image: a C++ (Itanium ABI) or Rust symbol is
// demangled, as pprof does, into Func with its parameters
// ("mesh::Grid::step(double)") and Short without parameter lists and
// template arguments ("mesh::Grid::step"), and sym is kept as Linked. A
// symbol that is not mangled is its own Func. A suffix after "@" (a PLT
// stub, "foo@plt", or a symbol version) stays on both forms. Names are
// demangled once, here, as they are interned; every later stage and every
// output works with the written names.
func Written(image, sym string) trace.Name {
	n := trace.Name{Image: image, Func: sym}
	base, suffix := sym, ""
	if i := strings.IndexByte(sym, '@'); i > 0 {
		base, suffix = sym[:i], sym[i:]
	}
	if !mangled(base) {
		return n
	}
	full, err := demangle.ToString(base)
	if err != nil || full == "" {
		return n
	}
	n.Func = full + suffix
	n.Linked = sym
	if short := demangle.Filter(base, demangle.NoParams, demangle.NoTemplateParams, demangle.NoClones); short != base && short+suffix != n.Func {
		n.Short = short + suffix
	}
	if u := demangle.Filter(base, demangle.NoTemplateParams); u != base && u+suffix != n.Func {
		n.Untemplated = u + suffix
	}
	return n
}

// mangled reports whether s looks like a C++ or Rust mangled name, so that
// plain C names never go through the demangler.
func mangled(s string) bool {
	return strings.HasPrefix(s, "_Z") || strings.HasPrefix(s, "_R")
}
