package report

import "github.com/difftrace/difftrace/rank"

// Report is everything the page shows, as plain values.
type Report struct {
	Title   string `json:"title"`   // e.g. "stencil-normal vs stencil-skipbug"
	Version string `json:"version"` // difftrace's version, in the page's footer

	Runs []Run `json:"runs"` // the normal run, the faulty run, then further normal runs
	// Traces and Processes count the objects compared (the union of the
	// runs' trace IDs).
	Traces    int `json:"traces"`
	Processes int `json:"processes"`

	Verdict Verdict `json:"verdict"`
	Grid    Grid    `json:"grid"`
	Rows    []Row   `json:"rows"` // every row of the ranking, best first
	// Consensus sums the rows up: which trace was the top suspect in how
	// many of them.
	Consensus Consensus `json:"consensus"`
	Hang      *Hang     `json:"hang,omitempty"` // nil when the faulty run ended normally

	// Views and Combinations are precomputed for a few rows only (Rows[i].
	// Combination), as Precomputed says.
	Views        []View        `json:"views"`
	Combinations []Combination `json:"combinations"`
	Precomputed  string        `json:"precomputed"`

	Diffs    []Diff    `json:"diffs"`    // the diffNLRs of the top suspects, the suggested one first
	Commands []Command `json:"commands"` // how to reproduce each part
	Notes    []string  `json:"notes,omitempty"`
}

// Run is one recorded run.
type Run struct {
	Role    string `json:"role"` // "normal", "faulty", "normal (noise floors)"
	Dir     string `json:"dir"`
	Program string `json:"program"` // "" when not recorded
	Command string `json:"command"` // the traced command line, "" when not recorded
	// Shape says how many ranks and threads: "8 processes × 5 threads".
	Shape   string   `json:"shape"`
	Traces  int      `json:"traces"`
	Started string   `json:"started,omitempty"`
	Took    string   `json:"took,omitempty"`
	Endings []Ending `json:"endings"`
}

// Ending is how some ranks of a run ended.
type Ending struct {
	How   string `json:"how"`   // "exited 0", "timed out in MPI_Recv" (rundir.Rank.Ended)
	Ranks string `json:"ranks"` // "ranks 0–7"
	Bad   bool   `json:"bad"`   // not a normal exit
}

// Verdict is the page's answer: which trace to look at and why.
type Verdict struct {
	// Suspect is the trace (or process) whose diffNLR the ranking
	// suggests, "" when it suggests none.
	Suspect string `json:"suspect"`
	// Headline says the verdict in one sentence.
	Headline string `json:"headline"`
	// First is the first difference of the suspect under the suggested
	// view, as "difftrace diffnlr" prints it ("first difference: …"); one
	// line per thread of a process.
	First []string `json:"first,omitempty"`
	View  string   `json:"view,omitempty"` // "filter mpi, K 10"
	// Why are the sentences that back the verdict: which combinations,
	// the hang analysis, the noise floor.
	Why []string `json:"why"`
	// Unclear is set when the ranking names no clear suspect.
	Unclear bool `json:"unclear"`
	// Diff indexes Report.Diffs for the suspect's diffNLR, -1 for none.
	Diff int `json:"diff"`
}

// Grid is what the sweep covered.
type Grid struct {
	Filters  []string `json:"filters"`
	Ks       []int    `json:"k"`
	Attrs    []string `json:"attrs"`
	Linkages []string `json:"linkages"`
	// LeftOut says which filters were left out and why.
	LeftOut []string  `json:"left_out,omitempty"`
	RunWide []RunWide `json:"run_wide,omitempty"`
	// NoiseRuns counts the further normal runs that set noise floors.
	NoiseRuns int `json:"noise_runs"`
}

// RunWide is a change every process of the faulty run shows alike under
// one filter and K: set aside before any row is scored.
type RunWide struct {
	Filter  string   `json:"filter"`
	K       int      `json:"k"`
	Changes []string `json:"changes"`
}

// Row is one row of the ranking (rank.Row) as the page shows it: its
// first suspects only, where the page holds its pictures and the commands
// that draw them. Its JSON is the page's: "threads" and "processes", not
// rank's "top_threads" and "top_processes".
type Row struct {
	Filter   string  `json:"filter"`
	K        int     `json:"k"`
	Attrs    string  `json:"attrs"`
	Linkage  string  `json:"linkage"`
	BScore   float64 `json:"bscore"`
	Clusters int     `json:"clusters"`
	// ProcessBScore is the B-score at process level.
	ProcessBScore float64 `json:"process_bscore"`
	// Threads and Processes are the row's first suspects, most changed
	// first; MoreThreads and MoreProcesses count those left out.
	Threads       []rank.Suspect `json:"threads"`
	Processes     []rank.Suspect `json:"processes"`
	MoreThreads   int            `json:"more_threads"`
	MoreProcesses int            `json:"more_processes"`
	// Combination indexes Report.Combinations, -1 when the row was not
	// precomputed.
	Combination int `json:"combination"`
	// Suggested marks the row whose filter and K the suggested diffNLR
	// takes (the first such row).
	Suggested bool `json:"suggested,omitempty"`
	// Commands reproduce the row's pictures ("difftrace jsm …").
	Commands []string `json:"commands"`
}

// Consensus is which traces the rows suspect most.
type Consensus struct {
	Rows      int         `json:"rows"`
	Threads   []rank.Vote `json:"threads"`
	Processes []rank.Vote `json:"processes"`
	// ThreadLine and ProcessLine say it in a sentence, as rank does.
	ThreadLine  string `json:"thread_line"`
	ProcessLine string `json:"process_line"`
}

// Hang is how a faulty run that did not end normally ended (package hang).
type Hang struct {
	Ended    string         `json:"ended"`
	Classes  *Class         `json:"classes"`
	Waits    []string       `json:"waits,omitempty"`
	Suspects []HangSuspect  `json:"suspects"`
	Progress []HangProgress `json:"progress"`
	// ProgressMore counts the traces left out of Progress (MaxProgress).
	ProgressMore int      `json:"progress_more,omitempty"`
	Loops        []string `json:"loops,omitempty"`
	Filter       string   `json:"filter"`
	Notes        []string `json:"notes,omitempty"`
}

// Class is a node of the tree of where traces ended: the frames below its
// parent's and the traces that passed through them.
type Class struct {
	Frames   string   `json:"frames"` // "main > solve > MPI_Waitall", "" for the root
	Traces   string   `json:"traces"` // "[0-1,3]"
	Count    int      `json:"count"`
	Ended    int      `json:"ended"` // traces that ended right here
	Children []*Class `json:"children,omitempty"`
}

// HangSuspect is a trace the hang analysis suspects, with its reason.
type HangSuspect struct {
	Trace  string `json:"trace"`
	Reason string `json:"reason"`
}

// HangProgress is how far one trace got.
type HangProgress struct {
	Trace     string `json:"trace"`
	Where     string `json:"where"`
	StoppedIn string `json:"stopped_in"`
}

// View is what one filter, K and attribute mode show: the runs'
// similarity matrices and concept lattices (the same for every linkage).
type View struct {
	Filter   string    `json:"filter"`
	K        int       `json:"k"`
	Attrs    string    `json:"attrs"`
	Heatmaps *Heatmaps `json:"heatmaps"`
	// Lattices are the normal and the faulty run's; nil where too large
	// to draw, LatticeNotes then saying why.
	Lattices     [2]*Lattice `json:"lattices"`
	LatticeNotes [2]string   `json:"lattice_notes"`
	Commands     []string    `json:"commands"`
}

// Combination is one precomputed row: its view and the two runs'
// dendrograms under its linkage, cut where the B-score cuts them.
type Combination struct {
	Row         int           `json:"row"`  // index in Report.Rows
	View        int           `json:"view"` // index in Report.Views
	Dendrograms [2]Dendrogram `json:"dendrograms"`
	Commands    []string      `json:"commands"`
}

// Diff is the diffNLR of one trace under one view, as "difftrace diffnlr"
// prints it.
type Diff struct {
	Trace  string `json:"trace"`
	Header string `json:"header"` // "diffNLR(3): filter mpi, K 10 (…)"
	// First are the first-difference lines ("first difference: …").
	First []string `json:"first"`
	// Notes are further lines said before the diff (run-wide changes
	// left out).
	Notes []string   `json:"notes,omitempty"`
	Lines []DiffLine `json:"lines"`
	// Loops define the loops the diff shows ("L0 = [MPI_Send, MPI_Recv]").
	Loops   []string `json:"loops"`
	Command string   `json:"command"`
}

// DiffLine is one line of a diffNLR.
type DiffLine struct {
	// Kind is "common", "normal" (only in the normal run), "faulty" (only
	// in the faulty run), "head" (a section's or a skipped stretch's line)
	// or "note".
	Kind string `json:"kind"`
	Sign string `json:"sign"` // "  ", "- ", "+ " or ""
	Text string `json:"text"` // the element as diffnlr writes it ("L1^16", "MPI_Init")
	Note string `json:"note,omitempty"`
	// End marks where a faulty trace that ended abnormally stopped.
	End string `json:"end,omitempty"`
	// Body, for a loop, is what one iteration does.
	Body []Node `json:"body,omitempty"`
}

// Node is an element of a loop's body; a loop has its own body.
type Node struct {
	Text string `json:"text"`
	Body []Node `json:"body,omitempty"`
	// More counts elements left out of a body too large to show.
	More int `json:"more,omitempty"`
}

// Command is a command line that reproduces part of the page.
type Command struct {
	What string `json:"what"`
	Line string `json:"line"`
}
