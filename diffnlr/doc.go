// Package diffnlr shows how one trace changed between a normal and a faulty
// run: it diffs the two NLR sequences of the trace and lays the result out
// for display, the diffNLR of seeds/002 §3.2.7.1 (Figs 3.5–3.6; the ILCS pictures of Fig. 3.7,
// §3.4.2–3.4.4).
//
// Diff aligns the sequences with a token-level Myers diff (go-diff), one
// token per NLR element, so "L1^16" against "L1^7, L0^9" is one change and
// not a change of characters. The result is a list of Blocks: runs common to
// both runs, runs only in the normal run, runs only in the faulty run.
//
// A Picture is a diff ready to show: Picture.WriteText prints it as text,
// "  " common, "- " normal only, "+ " faulty only, like a unified diff, and
// when the faulty trace was cut short its last event is marked. A picture
// of several traces, such as the threads of a process, holds one Section
// per trace, each under a heading. diffnlr draws nothing itself:
// draw/diffgraph draws Picture.View with Graphviz (Figs 3.5–3.7).
//
// Real traces give long diffs, so the text and the picture abridge them the same way (see
// Abridge): long common runs keep a few elements at each end around a
// "… N more common …" line, long changed runs likewise, and when there are
// very many changes only the first and last ones are shown.
package diffnlr
