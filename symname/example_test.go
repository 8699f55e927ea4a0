package symname_test

import (
	"fmt"

	"github.com/difftrace/difftrace/symname"
)

// Symbols as a C++, a Fortran and a C compiler wrote them, read as written.
func ExampleWritten() {
	for _, sym := range []string{"_ZN4mesh4Grid4stepEd", "__physics_MOD_compute_forces", "relax.constprop.0", "MPI_Send"} {
		n := symname.Written("app", sym)
		fmt.Printf("%-30s %-28s %s\n", sym, n.Func, n.Brief())
	}
	// Output:
	// _ZN4mesh4Grid4stepEd           mesh::Grid::step(double)     mesh::Grid::step
	// __physics_MOD_compute_forces   physics::compute_forces      physics::compute_forces
	// relax.constprop.0              relax.constprop.0            relax
	// MPI_Send                       MPI_Send                     MPI_Send
}
