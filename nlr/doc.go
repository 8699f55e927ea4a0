// Package nlr implements nested-loop recognition (seeds/002 §3.2.4 and
// §3.3.1, Procedure 1): it folds the repeated blocks of a filtered call
// sequence into loops, "MPI_Init, L0^4, MPI_Finalize", with one loop table
// shared by every trace of a comparison so that L0 means the same body in
// both runs.
//
// Recognition runs in two passes over every trace, as DESIGN.md states:
// pass 1 (Discoverer) finds loops — three adjacent copies of a block of at
// most K elements make a loop, a following copy extends it, and loops nest
// since a block may hold loops; pass 2 (Fold) pools the bodies of all
// traces and folds two adjacent copies of a known body into a loop of 2,
// which is how the edge ranks of seeds/002 Table 3.3 get L0^2. Loops are
// numbered by first appearance in a fixed order (normal run before faulty,
// trace IDs ascending, position in the trace), so results do not depend on
// the order of the traces or on how many cores ran them. The cost is
// Θ(K²·N) for N symbols.
//
// Recognize does both passes for traces in memory; a Discoverer takes a
// trace in chunks as it is decoded and filtered, and Fold finishes the
// comparison. Table holds the bodies; Sequence.Format and Table.Legend
// write the text form; Table.Expand undoes recognition; Table.Iterations
// and Table.LoopIterations measure how far a trace got.
package nlr
