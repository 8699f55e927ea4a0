// Package rank ranks the traces a bug changed (seeds/002 §3.2.6–3.2.7 and
// §3.3.3, Tables 3.6–3.9): over a grid of parameters (filter × K ×
// attribute mode × linkage) it compares a normal and a faulty run (package
// compare) and returns the ranking table, the traces whose JSM_D rows
// changed most in each row, a consensus over the whole sweep, and the view
// (filter and K) under which the consensus top's diffNLR shows its change.
//
//   - Sweep computes, per (filter, K, attribute mode), JSM_normal and
//     JSM_faulty (from attribute bitsets: the same values as the
//     lattice's, without building lattices nobody looks at), JSM_D =
//     |JSM_faulty − JSM_normal|, the suspicious traces (see Suspects), and
//     per linkage both dendrograms of the distance 1 − JSM and their
//     B-score; it runs the whole grid in parallel and sorts the rows into
//     the ranking table, ending with a Consensus and a suggestion (Suggest).
//     When the faulty run did not end normally, Sweep asks the hang analysis
//     (package hang) which trace to suggest.
//
// What a ranking can see: only calls. A bug that changes which calls a
// trace makes, how often, or where it stops (a swapped Send/Recv, a
// missing critical section, a deadlock) changes its attributes and its
// JSM_D row. A bug that changes values but not calls — ilcs --max-bug,
// which reduces with MPI_MAX instead of MPI_MIN — is invisible until it
// changes control flow: on the committed ilcs-maxbug run no MPI, OpenMP or
// memory filter finds any suspect, and the only differences left are those
// of the command line itself (the extra arguments parsed with strcmp and
// atoi in every process), which make the master threads the "suspects" of
// the str and all filters.
// Likewise, in a deadlock every rank stops somewhere and many JSM_D rows
// move alike; the suspects are then the ranks stuck in the same way, and
// progress change (how many loop iterations a trace lost) orders them. A
// trace whose NLR is the same in both runs is never a suspect, however far
// its similarity to the others moved: in a deadlock the one rank that got
// through all its phases would otherwise stand out for not having changed.
//
// Results are deterministic: every parallel step writes to its own slot and
// nothing depends on the order goroutines finish, so the output is the same
// byte for byte whatever the number of cores.
package rank
