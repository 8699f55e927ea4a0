// Package compare turns recorded runs into comparable traces (seeds/002
// §3.2.4–3.2.7): it opens one run, or a normal and a faulty run and any
// further normal runs, with one symbol table, recognises the loops of every
// trace under each filter and K with one loop table, and answers what the
// commands, the ranking (package rank) and the hang analysis (package hang)
// ask of the pair: how a trace's NLR differs between the runs, where its
// calls first part and why, which objects' similarity to the others moved.
//
// The stages, each reused so nothing is computed twice:
//
//   - Open opens the runs (normal first) with one shared symbol table and
//     lists the union of their trace IDs, saying which exist in one run only;
//     a summary directory (package summary) opens as a run.
//   - Comparison.Recognize decodes every trace once, applies every filter to
//     each decoded chunk in that single pass and feeds the kept calls to one
//     NLR discoverer per (filter, K); then it folds each (filter, K) over both
//     runs with one loop table (nlr.Fold, normal run first). Memory is the
//     NLRs of the filtered traces, never the raw events. Changes every
//     process of the faulty run shows alike are set aside (NLR.RunWide).
//   - NLR.Context builds the formal contexts of both runs over the union of
//     trace IDs, at thread or process level (see Level), with polling and
//     what varies between normal runs taken loosely (see Polling).
//   - NLR.Similarity adds the concept lattices and the JSMs read off them
//     (the lattice and jsm commands); NLR.BitsetSimilarity computes the same
//     JSMs from attribute bitsets, as a ranking needs them.
//   - NLR.Diff, NLR.Explain and Comparison.DiffNLR say how one trace
//     changed: its diffNLR, the first difference and its sentence, and the
//     whole picture the diffnlr command draws.
//
// Results are deterministic: every parallel step writes to its own slot and
// nothing depends on the order goroutines finish, so the output is the same
// byte for byte whatever the number of cores.
package compare
