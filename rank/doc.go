// Package rank is difftrace's analysis pipeline (seeds/002 §3.2.6–3.2.7 and
// §3.3.3, Tables 3.6–3.9): it takes one or two recorded runs and a grid of
// parameters and returns everything the commands show — filtered calls,
// NLRs with one loop table, formal contexts and lattices, Jaccard similarity
// matrices, dendrograms, B-scores, the traces a bug changed most and a
// consensus over the whole sweep.
//
// The stages, each reused by every command so nothing is computed twice:
//
//   - Open opens the runs (normal first) with one shared symbol table and
//     lists the union of their trace IDs, saying which exist in one run only.
//   - Comparison.Recognize decodes every trace once, applies every filter to
//     each decoded chunk in that single pass and feeds the kept calls to one
//     NLR discoverer per (filter, K); then it folds each (filter, K) over both
//     runs with one loop table (nlr.Fold, normal run first). Memory is the
//     NLRs of the filtered traces, never the raw events.
//   - NLR.Context builds the formal contexts of both runs over the union of
//     trace IDs, at thread or process level (see Level).
//   - NLR.Similarity adds the concept lattices and the JSMs read off them
//     (the lattice and jsm commands).
//   - The sweep's analysis computes, per (filter, K, attribute mode),
//     JSM_normal and JSM_faulty (from attribute bitsets: the same values as
//     the lattice's, without building lattices nobody looks at), JSM_D =
//     |JSM_faulty − JSM_normal|, the suspicious traces (see Scores), and per
//     linkage both dendrograms of the distance 1 − JSM and their B-score.
//   - Sweep runs that analysis over a whole grid in parallel and sorts the rows
//     into the ranking table, ending with a Consensus.
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
