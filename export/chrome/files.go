package chrome

import (
	"io"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/trace"
)

// Files is how a run's timeline is laid out in files: one, or one per rank
// when a single file would be more than a viewer loads.
type Files struct {
	Paths  []string     // the files to write, in order
	Traces [][]trace.ID // the traces each file holds
	Size   int64        // the JSON of all the traces, in bytes before compression
}

// Split lays the timeline of traces ids of run, written under opts to
// path, out in files: path alone when the JSON weighs limit or less, else
// one file per rank (ByRank), named by RankFile. It sizes every trace
// (Size) to tell.
func Split(run *decode.Run, ids []trace.ID, opts Options, path string, limit int64) (*Files, error) {
	sizes, err := Size(run, ids, opts)
	if err != nil {
		return nil, err
	}
	f := &Files{Paths: []string{path}, Traces: ByRank(ids, sizes, limit)}
	for _, s := range sizes {
		f.Size += s
	}
	if len(f.Traces) > 1 {
		f.Paths = make([]string, len(f.Traces))
		for i, g := range f.Traces {
			f.Paths[i] = RankFile(path, g[0].Proc)
		}
	}
	return f, nil
}

// WriteRun writes the timeline of traces ids of run to w: a Writer, AddRun
// and Close.
func WriteRun(w io.Writer, run *decode.Run, ids []trace.ID, opts Options) error {
	cw := NewWriter(w, opts)
	if err := AddRun(cw, run, ids); err != nil {
		return err
	}
	return cw.Close()
}

// WriteDiff writes the timeline of trace id of the normal and the faulty
// run to w, aligned at their first difference: a Writer, AddDiff and
// Close. It returns the alignments.
func WriteDiff(w io.Writer, normal, faulty *decode.Run, id trace.ID, opts Options) ([]Alignment, error) {
	cw := NewWriter(w, opts)
	aligned, err := AddDiff(cw, normal, faulty, id)
	if err != nil {
		return nil, err
	}
	return aligned, cw.Close()
}

// Metadata is what a timeline of the run in dir says of itself in its
// otherData: the producer that wrote it (e.g. "difftrace 1.2"), the run,
// and the filter that chose its calls ("" for every call).
func Metadata(producer, dir, filter string) map[string]any {
	if filter == "" {
		filter = "none: every call"
	}
	return map[string]any{"producer": producer, "run": dir, "filter": filter}
}

// DiffMetadata is Metadata for a timeline of trace id of two runs
// (WriteDiff).
func DiffMetadata(producer, normal, faulty string, id trace.ID, filter string) map[string]any {
	m := Metadata(producer, "", filter)
	delete(m, "run")
	m["normal"], m["faulty"], m["trace"] = normal, faulty, id.String()
	return m
}
