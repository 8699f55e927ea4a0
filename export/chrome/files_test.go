package chrome_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/difftrace/difftrace/export/chrome"
	"github.com/difftrace/difftrace/internal/exporttest"
	"github.com/difftrace/difftrace/trace"
)

// Split keeps a run in one file under the limit and gives each rank a file
// of its own above it; WriteRun writes what a Writer, AddRun and Close do.
func TestSplitAndWriteRun(t *testing.T) {
	tab := trace.NewTable()
	run := exporttest.Open(t, "oddeven4-normal", tab)
	ids := run.Traces()
	opts := chrome.Options{Names: run, Metadata: chrome.Metadata("difftrace test", run.Dir, "")}
	one, err := chrome.Split(run, ids, opts, "out.json.gz", chrome.SplitSize)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(one.Paths, []string{"out.json.gz"}) || len(one.Traces) != 1 || one.Size == 0 {
		t.Errorf("under the limit: %+v", one)
	}
	split, err := chrome.Split(run, ids, opts, "out.json.gz", 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"out.rank-0.json.gz", "out.rank-1.json.gz", "out.rank-2.json.gz", "out.rank-3.json.gz"}; !slices.Equal(split.Paths, want) || split.Size != one.Size {
		t.Errorf("over the limit: %+v", split)
	}
	var got, want bytes.Buffer
	if err := chrome.WriteRun(&got, run, ids, opts); err != nil {
		t.Fatal(err)
	}
	w := chrome.NewWriter(&want, opts)
	if err := chrome.AddRun(w, run, ids); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Error("WriteRun differs from NewWriter, AddRun and Close")
	}
	var doc struct {
		Other map[string]any `json:"otherData"`
	}
	if err := json.Unmarshal(got.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Other["producer"] != "difftrace test" || doc.Other["run"] != run.Dir || doc.Other["filter"] != "none: every call" {
		t.Errorf("otherData %v", doc.Other)
	}
}

func TestDiffMetadata(t *testing.T) {
	m := chrome.DiffMetadata("difftrace test", "n", "f", trace.ID{Proc: 3, Thread: 1}, "mpi")
	want := map[string]any{"producer": "difftrace test", "normal": "n", "faulty": "f", "trace": "3.1", "filter": "mpi"}
	if len(m) != len(want) {
		t.Errorf("DiffMetadata = %v", m)
	}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("DiffMetadata[%s] = %v, want %v", k, m[k], v)
		}
	}
}
