// Package diffnlr shows how one trace changed between a normal and a faulty
// run: it diffs the two NLR sequences of the trace and draws the result, the
// diffNLR of seeds/002 §3.2.7.1 (Figs 3.5–3.6; the ILCS pictures of Fig. 3.7,
// §3.4.2–3.4.4).
//
// Diff aligns the sequences with a token-level Myers diff (go-diff), one
// token per NLR element, so "L1^16" against "L1^7, L0^9" is one change and
// not a change of characters. The result is a list of Blocks: runs common to
// both runs, runs only in the normal run, runs only in the faulty run.
//
// Picture.Render draws the blocks with Graphviz (go-graphviz, compiled to
// WebAssembly, so nothing needs installing; see package draw, which runs it
// in a helper process unless draw/graphviz is linked): a vertical stem of green boxes
// for the common runs, blue boxes for what only the normal run did on the
// left, red boxes for what only the faulty run did on the right, both
// rejoining the stem at the next common element, a title, and a legend with
// the colour key and the loop bodies. When the two traces end differently the
// last event recorded in the faulty run is marked, so a run that hung shows a
// stem that stops where the faulty process stopped while the normal side goes
// on to MPI_Finalize. Picture.WriteText prints the same diff as text,
// "  " common, "- " normal only, "+ " faulty only, like a unified diff. A picture of several traces, such as
// the threads of a process, holds one Section per trace, each under a heading.
//
// Real traces give long diffs, so both views abridge them the same way (see
// Abridge): long common runs keep a few elements at each end around a
// "… N more common …" line, long changed runs likewise, and when there are
// very many changes only the first and last ones are shown.
package diffnlr
