package symname

import (
	"testing"

	"github.com/difftrace/difftrace/trace"
)

func TestWritten(t *testing.T) {
	for _, c := range []struct {
		sym  string
		want trace.Name
	}{
		{"MPI_Send", trace.Name{Func: "MPI_Send"}},
		{"main", trace.Name{Func: "main"}},
		{"_ZN4mesh4Grid4stepEd", trace.Name{Func: "mesh::Grid::step(double)", Linked: "_ZN4mesh4Grid4stepEd", Short: "mesh::Grid::step"}},
		{"_ZNK4mesh5FieldIdE2atEii", trace.Name{Func: "mesh::Field<double>::at(int, int) const", Linked: "_ZNK4mesh5FieldIdE2atEii", Short: "mesh::Field::at", Untemplated: "mesh::Field::at(int, int) const", Templated: "mesh::Field<double>::at"}},
		{"_ZN6solver8SmootherIdLi2EE5relaxERN4mesh5FieldIdEERKS4_", trace.Name{
			Func:   "solver::Smoother<double, 2>::relax(mesh::Field<double>&, mesh::Field<double> const&)",
			Linked: "_ZN6solver8SmootherIdLi2EE5relaxERN4mesh5FieldIdEERKS4_", Short: "solver::Smoother::relax",
			Untemplated: "solver::Smoother::relax(mesh::Field&, mesh::Field const&)", Templated: "solver::Smoother<double, 2>::relax"}},
		{"_ZN3foo3barEv.isra.0", trace.Name{Func: "foo::bar() [clone .isra.0]", Linked: "_ZN3foo3barEv.isra.0", Short: "foo::bar"}},
		// A PLT stub keeps its suffix on both forms.
		{"_ZN4mesh4Grid4stepEd@plt", trace.Name{Func: "mesh::Grid::step(double)@plt", Linked: "_ZN4mesh4Grid4stepEd@plt", Short: "mesh::Grid::step@plt"}},
		// Not a mangled name, though it starts like one: left as it is.
		{"_Zebra", trace.Name{Func: "_Zebra"}},
		{"_ZN", trace.Name{Func: "_ZN"}},
		// Fortran: module procedures of gfortran, Intel and LLVM flang,
		// and externals, as in the source.
		{"__physics_MOD_compute_forces", trace.Name{Func: "physics::compute_forces", Linked: "__physics_MOD_compute_forces"}},
		{"physics_mp_compute_forces_", trace.Name{Func: "physics::compute_forces", Linked: "physics_mp_compute_forces_"}},
		{"_QMphysicsPcompute_forces", trace.Name{Func: "physics::compute_forces", Linked: "_QMphysicsPcompute_forces"}},
		{"_QPsolve", trace.Name{Func: "solve", Linked: "_QPsolve"}},
		{"__forces_MOD_compute_forces._omp_fn.0", trace.Name{Func: "forces::compute_forces._omp_fn.0", Linked: "__forces_MOD_compute_forces._omp_fn.0"}},
		{"solve_", trace.Name{Func: "solve", Linked: "solve_"}},
		{"mpi_allreduce_", trace.Name{Func: "mpi_allreduce", Linked: "mpi_allreduce_"}},
		{"mpi_send_@plt", trace.Name{Func: "mpi_send@plt", Linked: "mpi_send_@plt"}},
		// gfortran's main program and runtime, names with two trailing
		// underscores or capitals, and C's own: as they are.
		{"MAIN__", trace.Name{Func: "MAIN__"}},
		{"_gfortran_st_write", trace.Name{Func: "_gfortran_st_write"}},
		{"mpi_send__", trace.Name{Func: "mpi_send__"}},
		{"MPI_SEND_", trace.Name{Func: "MPI_SEND_"}},
		{"__libc_start_main", trace.Name{Func: "__libc_start_main"}},
		{"_start", trace.Name{Func: "_start"}},
	} {
		c.want.Image = "app"
		if got := Written("app", c.sym); got != c.want {
			t.Errorf("Written(%q) = %+v, want %+v", c.sym, got, c.want)
		}
	}
}

// Labels are brief, but tell overloads apart by their parameters, and
// instances of one template by their arguments; a constructor's complete
// and base object variants (C1, C2) are one name.
func TestLabels(t *testing.T) {
	tab := trace.NewTable()
	step := tab.Intern(Written("app", "_ZN4mesh4Grid4stepEd"))
	atConst := tab.Intern(Written("app", "_ZNK4mesh5FieldIdE2atEii"))
	at := tab.Intern(Written("app", "_ZN4mesh5FieldIdE2atEii"))
	c1 := tab.Intern(Written("app", "_ZN4mesh4GridC1Eii"))
	c2 := tab.Intern(Written("app", "_ZN4mesh4GridC2Eii"))
	send := tab.Intern(Written("libmpi.so.40", "MPI_Send"))
	fill := tab.Intern(Written("app", "_ZN4mesh5FieldIdE4fillEd"))
	fillInt := tab.Intern(Written("app", "_ZN4mesh5FieldIiE4fillEi"))
	swap := tab.Intern(Written("app", "_ZN4mesh5FieldIdE4swapERS1_"))
	swapInt := tab.Intern(Written("app", "_ZN4mesh5FieldIiE4swapERS1_"))
	for _, c := range []struct {
		s    trace.Symbol
		want string
	}{
		{step, "mesh::Grid::step"},
		{atConst, "mesh::Field::at(int, int) const"},
		{at, "mesh::Field::at(int, int)"},
		{fill, "mesh::Field::fill(double)"},
		{fillInt, "mesh::Field::fill(int)"},
		// Two instances of one template: their template arguments tell
		// them apart, without their parameters.
		{swap, "mesh::Field<double>::swap"},
		{swapInt, "mesh::Field<int>::swap"},
		{c1, "mesh::Grid::Grid"},
		{c2, "mesh::Grid::Grid"},
		{send, "MPI_Send"},
	} {
		if got := tab.Label(c.s); got != c.want {
			t.Errorf("Label(%v) = %q, want %q", tab.Name(c.s), got, c.want)
		}
	}
	tab.ShowSignatures(true)
	if got, want := tab.Label(step), "mesh::Grid::step(double)"; got != want {
		t.Errorf("with signatures, Label = %q, want %q", got, want)
	}
}

// A C function GCC cloned is shown by the name written; the symbol stays
// its Func.
func TestWrittenClones(t *testing.T) {
	for sym, want := range map[string]string{
		"relax.constprop.0":       "relax",
		"sweep.isra.0.part.0":     "sweep",
		"exchange.cold":           "exchange",
		"main._omp_fn.0":          "main._omp_fn.0",
		"compute.constprop.0@plt": "compute@plt",
		"plain":                   "plain",
	} {
		n := Written("<program>", sym)
		if n.Func != sym || n.Brief() != want {
			t.Errorf("Written(%q) = Func %q, Brief %q; want Func %q, Brief %q", sym, n.Func, n.Brief(), sym, want)
		}
	}
}
