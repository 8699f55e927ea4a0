// Package report turns the results of a comparison into output documents,
// as pprof's internal/report does for profiles: a Report holds what the
// analysis found as plain values (the runs, the verdict, the ranking rows
// and their consensus, the hang section, the similarity matrices,
// dendrograms and lattices of chosen combinations, the diffNLRs of the top
// suspects and the commands that reproduce each part), and Write writes
// it as one self-contained HTML page (or as JSON).
//
// The page needs no network: its style, script and pictures are inline.
// Heatmaps are drawn as PNG images inside SVG figures, dendrograms and
// lattices as SVG drawn here (seeds/002 §3.2.5–3.2.7, Figs 3.3–3.6). Names
// from traces are escaped for HTML and SVG, and control and bidirectional
// characters in them are shown as escapes (trace.Printable).
//
// The values are built by the functions of build.go from the analysis
// packages' results (rank, hang, fca, cluster); what needs the command
// line's own text (the diffNLR as "difftrace diffnlr" prints it, the
// commands) is filled in by the caller.
package report
