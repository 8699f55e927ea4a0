// Package filters decides which calls of a trace to keep before loops are
// folded: the pre-defined filters of seeds/002 Table 3.1 (§3.2.3), custom
// regular expressions, and the removal of returns and PLT stubs.
//
// A filter is written as a spec, one or more terms joined by "+", each a
// preset or cust=REGEXP, and kept as a union: "mpi+omp.crit+cust=CPU_Exec"
// keeps MPI calls, OpenMP critical sections and every function whose name
// matches CPU_Exec. The spec as written is the filter's name in every table.
// A filter is compiled once per symbol table into a Mask, one boolean per
// symbol, so no regular expression runs per event.
package filters
