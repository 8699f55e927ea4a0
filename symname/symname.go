// Package symname turns a symbol, as the linker saw it, into the name of
// the function as its programmer wrote it: C++ and Rust symbols are
// demangled (as pprof does), Fortran compilers' symbols read as the
// source's names, and functions GCC cloned read by the name written.
// decode names every function of a run with Written as it interns it;
// capture uses it where it matches names before a run is read.
package symname

import (
	"regexp"
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
// stub, "foo@plt", or a symbol version) stays on both forms. decode
// demangles names once, as it interns them; every later stage and every
// output works with the written names.
func Written(image, sym string) trace.Name {
	n := trace.Name{Image: image, Func: sym}
	base, suffix := sym, ""
	if i := strings.IndexByte(sym, '@'); i > 0 {
		base, suffix = sym[:i], sym[i:]
	}
	if f, ok := fortran(base); ok {
		n.Func, n.Linked = f+suffix, sym
		return n
	}
	if !mangled(base) {
		// A C function the compiler cloned (relax.constprop.0) reads as
		// the function written, as demangling does for C++ clones.
		if m := clone.FindStringSubmatch(base); m != nil {
			n.Short = m[1] + suffix
		}
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
	if tm := demangle.Filter(base, demangle.NoParams, demangle.NoClones); tm != base && tm+suffix != n.Func && tm+suffix != n.Short {
		n.Templated = tm + suffix
	}
	return n
}

// clone matches the name of a function GCC cloned or split: the function
// written, then suffixes such as .constprop.0, .isra.0, .part.0, .cold or
// .lto_priv.0. An OpenMP region (main._omp_fn.0) is a function of its own.
var clone = regexp.MustCompile(`^(.+?)(?:\.(?:constprop|isra|part|lto_priv|clone|cold)(?:\.[0-9]+)?)+$`)

// mangled reports whether s looks like a C++ or Rust mangled name, so that
// plain C names never go through the demangler.
func mangled(s string) bool {
	return strings.HasPrefix(s, "_Z") || strings.HasPrefix(s, "_R")
}

// fortran returns the name a Fortran compiler's symbol has in the source,
// and whether sym is one:
//
//	__physics_MOD_compute_forces   gfortran module procedure  physics::compute_forces
//	physics_mp_compute_forces_     Intel module procedure     physics::compute_forces
//	_QMphysicsPcompute_forces      LLVM flang                 physics::compute_forces
//	_QPsolve                       LLVM flang external        solve
//	solve_                         external procedure         solve
//
// An external procedure is recognised by its form alone — lower case,
// digits and underscores, one trailing underscore — which is also how C
// code names functions meant for Fortran (mpi_send_, dgemm_): those read
// without it too. gfortran's main program, MAIN__, and its runtime's
// _gfortran_* functions keep their names.
func fortran(sym string) (string, bool) {
	// A compiler's suffix (an OpenMP region outlined from the procedure,
	// "._omp_fn.0"; a clone, ".part.0") stays as it is.
	if i := strings.IndexByte(sym, '.'); i > 0 {
		if f, ok := fortran(sym[:i]); ok {
			return f + sym[i:], true
		}
		return "", false
	}
	if rest, ok := strings.CutPrefix(sym, "__"); ok {
		if mod, proc, ok := strings.Cut(rest, "_MOD_"); ok && ident(mod) && ident(proc) {
			return mod + "::" + proc, true
		}
		return "", false
	}
	if rest, ok := strings.CutPrefix(sym, "_QM"); ok {
		if mod, proc, ok := strings.Cut(rest, "P"); ok && ident(mod) && ident(proc) {
			return mod + "::" + proc, true
		}
		return "", false
	}
	if proc, ok := strings.CutPrefix(sym, "_QP"); ok && ident(proc) {
		return proc, true
	}
	base, ok := strings.CutSuffix(sym, "_")
	if !ok || !ident(base) || strings.HasSuffix(base, "_") {
		return "", false
	}
	if mod, proc, ok := strings.Cut(base, "_mp_"); ok && ident(mod) && ident(proc) {
		return mod + "::" + proc, true
	}
	return base, true
}

// ident says s is a Fortran name as compilers write it: a lower-case
// letter, then lower-case letters, digits and underscores.
func ident(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}
