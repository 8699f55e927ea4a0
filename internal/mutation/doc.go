// Package mutation checks the first-difference sentence of a diffNLR
// against ground truth made by mutation: it takes a real trace of a normal
// run, plants one known change in a copy of it, asks the explanation
// machinery where the copy parts from the original, and compares the answer
// with what was planted: the kind of change, the call, the iteration of
// every loop around it and the call stack.
//
// # Loops, the ground truth
//
// NewTree builds the call tree of one thread's events (a call's children
// are the calls it makes, in order; a virtual root holds the calls made
// outside any other). Each call has a hash of its whole subtree: two calls
// are equal when they call the same function and their subtrees are equal,
// call for call, at every depth.
//
// A loop is a tandem repeat among the children of one call (or of the
// root): Count ≥ 2 copies, one after the other, of a block of Period
// children, equal subtree for subtree. Blocks may be of any length, from
// one call to thousands. In each child sequence the repeats that cover the
// most children are taken first: of every maximal stretch where each child
// equals the one a period later (a repeat, at its leftmost start, with as
// many whole copies as follow), the longest in children covered, then the
// one of the smaller period, then the leftmost, each unless a repeat taken
// before overlaps it. Then the same again inside the body of each repeat
// taken, and in the stretches between them. So loops nest (the loops of a
// block are inside the block's loop, and a pair of equal calls that
// straddles two iterations is no loop), a loop's iterations are exactly
// equal (an outer loop whose iterations differ in an inner loop's count is
// no loop: only its equal stretches are), and of the rotations of a repeat
// the leftmost is taken ([b a b a b] is [b a]² b). Period and First count
// children of the call.
//
// The loops around a place (a call, or the gap before a call) are those of
// its caller's children that hold it and then, up the call stack, those
// that hold each of its callers, listed outermost first. Each comes with
// the 1-based iteration the place is in — the block of Period children it
// falls in, counted from the loop's first child — and the loop's count.
// When the body is a block of several calls, a place is in the iteration
// whose block holds the call, or holds the call's caller at that level; a
// call inserted between two iterations is placed in the iteration of the
// call it comes before (the call the normal run makes where the runs
// part).
//
// # Mutations and their answers
//
// A mutation is drawn at random (from a seed) in one trace; its answer
// (Answer) is where the normal trace first does something the mutated one
// does not, read in the normal trace's tree:
//
//   - OpDelete: a call that returned, with its subtree, deleted where it
//     is, mostly inside some loop: Missing, that call, the loops around it,
//     its callers.
//   - OpDeleteFrom: the same call (the same path of child positions from an
//     iteration of one of the loops around it) deleted in that iteration
//     and every later one: Missing, with the loops around the first one
//     deleted.
//   - OpInsert: a copy of a call's subtree inserted among its siblings,
//     anywhere from before the first to after the last: Added, that call,
//     the loops around the place before the call it is inserted before
//     (none at its caller's level after the last), the call stack of its
//     caller and the caller.
//   - OpSwap: two adjacent calls of different functions swapped: Reordered,
//     the first of them (in the normal order), its loops and callers.
//   - OpCount: a loop runs one iteration more or one fewer (its last block
//     deleted, or copied after it), in one place; mostly a loop inside
//     another, so in one iteration of that one: CountChanged, the first call
//     of the body, the call stack of the loop's calls, and the loops around
//     the loop, then the loop itself with the first iteration only one run
//     has and that run's count: n of n for one fewer, n+1 of n+1 for one
//     more.
//   - OpCut: the trace ends right after a call begins, so that the thread
//     hangs in it (the call left open, and all its callers): EndsHere, that
//     call, its loops and callers.
//
// Ambiguities, and what is defined:
//
//   - A call deleted among equal neighbours (a run of equal calls) leaves
//     the same trace whichever of them is deleted; the run is a loop of
//     period 1, so the answer is CountChanged of that loop (n of n). A call
//     copied next to an equal one likewise: CountChanged (n+1 of n+1) when
//     they were already two or more, else Added, placed after the one that
//     was there (the earliest place where the traces differ).
//   - Deleting a call whose next sibling calls the same function with
//     another subtree, or inserting before such a call, is ambiguous (which
//     of the two is missing is a matter of alignment): not drawn.
//     OpDeleteFrom of a call among equal neighbours is not drawn either
//     (OpCount covers it).
//   - A change of how many times a polling call repeats (MPI_Iprobe,
//     MPI_Test, poll, sched_yield: rank.Polling) is not drawn: difftrace
//     reads a stretch of polling calls as its calls once each, by design.
//   - Deletions and insertions change the trace's length and a swap is of
//     two different functions, so no mutation leaves the trace as it was.
//   - The answer is read in the normal trace. A change can make an
//     iteration equal to the others, or split a loop; the answer keeps the
//     normal trace's loops (a call deleted from one of three iterations
//     that differed from the other two is Missing where the normal trace
//     had it, not a change of count).
//   - The truth does not depend on a filter: under a filter that keeps
//     none of the calls a mutation touched, the explanation finds no
//     difference, and every check fails.
//
// # The explanation, and the adapter
//
// ExplainRuns explains a mutated run written to disk (Base.WriteRun: the
// run copied, the trace rewritten by the ParLOT writer, run.json updated)
// as difftrace diffnlr does: rank.Open, rank.Comparison.Recognize under the
// view, then rank.NLR.Explain, the one path the command and the hang
// analysis take. Given no view, it takes the view rank suggests: the sweep
// over the default grid (with the hang analysis's culprit when the faulty
// run hung) and rank.Suggest, as diffnlr reads the session rank saves.
//
// Explainer does the same in memory, thousands of times faster: it folds
// the base run's traces and the mutated one as rank.Comparison.Recognize
// does (each trace filtered by filters.Nests into a structural
// nlr.Discoverer, polling quieted as rank.Polling says, the distinct pass-1
// results of each run folded together by nlr.Fold, normal run first), then
// calls diffnlr.Explain with both traces' events, as rank.NLR.Explain does.
// With one normal run and one trace changed among two or more processes,
// what rank.NLR.Explain adds (pairs of calls no normal run makes, orders
// the normal runs vary in, run-wide changes) does nothing, which is what
// makes this possible; TestExplainSameAsFiles checks that both say the
// same sentence.
//
// Read is the adapter from the explanation to an Answer: it takes the
// kind, the call, the loops and the call stack from the fields of
// diffnlr.Explanation, and then checks that the sentence says them (the
// kind's wording, the call's name, every iteration, the call stack); a
// sentence that does not is read as Other.
//
// # Scores
//
// Compare checks an answer against the truth: the kind, the call (the same
// symbol), the iterations (the same list of iteration and count, outermost
// first, the same length) and the call stack (the same functions), and all
// four. Explainer.Run draws Config.PerOp mutations of each Op in a base run
// and scores them per Op (Score, Score.WriteTable, Score.WriteMisses).
//
// go test runs a few thousand mutations of eight real runs (TestAccuracy,
// under the filters all and mpi) and logs the table; -mutations N draws
// about N in all, and -mutation.min 0.99 (or DIFFTRACE_MUTATION_MIN=0.99)
// makes it fail when the share of mutations of some kind that pass every
// check under the filter all is below 99%. -mutation.suggested N also
// explains N mutations of each kind per run through run directories under
// the view rank suggests (a rank sweep each):
//
//	go test ./internal/mutation -run Accuracy -mutations 20000 -mutation.suggested 5 -v
package mutation
