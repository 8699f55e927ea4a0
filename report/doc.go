// Package report turns what difftrace found into output documents, as
// pprof's internal/report does for profiles. Each command's result is a
// document of plain values — Info, Stats, Listing and Stack (decode),
// NLRs, Kept (filter), JSM, Concepts (lattice), Ranking, DiffNLR,
// HangAnalysis and HangBrief, and the page's Report — and Write writes any
// of them in the formats it has (Text, JSON, CSV, HTML): one Options, one
// generator per format, a document implementing the generators of the
// formats its command offers. JSON is the plain encoding of a document's
// values unless the document says otherwise.
//
// The page (Report, built by NewPage) is one self-contained HTML file: the
// runs, the verdict, the ranking rows and their consensus, the hang
// section, the similarity matrices, dendrograms and lattices of chosen
// combinations, the diffNLRs of the top suspects and the commands that
// reproduce each part. It needs no network: its style, script and
// pictures are inline. Heatmaps are drawn as PNG images inside SVG
// figures, dendrograms and lattices as SVG drawn here (seeds/002
// §3.2.5–3.2.7, Figs 3.3–3.6).
//
// Names from traces are escaped for HTML and SVG, and control and
// bidirectional characters in them are shown as escapes in every text
// form (trace.Printable). Text that names a command's flags (where to
// find more rows, which flag adds a normal run) is given by the caller,
// which owns the flags.
package report
