// Package outlier analyses one run alone, when there is no normal run to
// compare it with (the bug shows only at scale, on the production input, or
// once): in an SPMD program most ranks, and most threads of a team, do the
// same thing, so the trace that differs from its peers is the natural
// suspect — once the program's own roles are told apart from a fault.
//
// Under every filter, K and attribute mode of a grid (rank.Grid) the traces
// fall into behaviour classes: the same attribute set (fca), as the
// two-run ranking computes them. Traces of one position — inner processes,
// the first process, the last one, main threads, worker threads — are
// peers. A trace alone in its class is
//
//   - a role when it has no peer at its position (rank 0 reading the input
//     and writing checkpoints, the main thread of the only process), or when
//     it makes every call its nearest peer makes, as often, and more, from
//     the first iteration of the loops around on (a rank whose part of the
//     domain holds a source);
//   - scattered when most traces of its position are alone too (a task
//     farm's workers taking different numbers of tasks): nothing to deviate
//     from;
//   - otherwise a suspect: it differs from peers that mostly share their
//     class (a loop that ran once fewer, a call its class-mates all make and
//     it does not, two calls swapped for a while).
//
// Classes of several traces at the first and the last position, or of main
// threads, are roles too, named by their position and how they differ from
// the largest class of their peers ("the first and the last rank:
// MPI_Sendrecv 12 times instead of 24 times (one neighbour fewer)").
//
// Each row of the grid (filter × K × mode × linkage) clusters the classes
// (distance 1 − JSM of the one run, weighted by class size) and scores each
// suspect by the height at which it joins the rest; the consensus counts in
// how many rows each trace was first (rank.Consensus). A leader of at least
// a quarter of the rows that find anyone, under two views or more, is
// diffed against the peer it keeps company with longest (PeerDiff: the
// two-run diffNLR with one trace in place of each run) and its first
// difference said as a two-run diffNLR says it. Progress counts the loop
// iterations each trace reached at its top level, and who lags behind its
// peers; a run that did not end normally also gets the hang analysis
// (hang.Analyze), whose suspects stand in when no trace stands apart.
//
// What one run cannot tell: a fault that changes a trace the same way in
// every iteration from the start reads as extra work, a role; a fault in a
// trace without peers (rank 0) reads as its role; a fault that changes no
// call (a wrong reduction operator) is invisible, as it is to a two-run
// ranking.
package outlier
