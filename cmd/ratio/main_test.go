package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/internal/testenv"
)

func needCompressors(t *testing.T) {
	t.Helper()
	for _, c := range compressors {
		testenv.Tool(t, c.Args[0], "the compression comparison cannot run")
	}
}

func TestTraceFiles(t *testing.T) {
	files, err := TraceFiles("../../testdata/parlot/oddeven4")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 4 || filepath.Base(files[0]) != "Hdbg.17.node01.3208.0" {
		t.Fatalf("trace files of oddeven4: %v", files)
	}
	files, err = TraceFiles("../../testdata/parlot/edge")
	if err != nil || len(files) != 16 {
		t.Fatalf("edge: %d files, %v", len(files), err)
	}
	if _, err := TraceFiles(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no ParLOT trace files") {
		t.Fatalf("empty directory: %v", err)
	}
}

func TestMeasure(t *testing.T) {
	needCompressors(t)
	r, err := Measure("../../testdata/parlot/edge/saturate.bin")
	if err != nil {
		t.Fatal(err)
	}
	if r.Traces != 1 || r.Events != 300000 || r.Raw != 600000 || r.ParLOT != 25 {
		t.Fatalf("saturate: %+v", r)
	}
	for i, k := range r.Other {
		// Every compressor shrinks 100,000 repetitions of 1 2 3, and none
		// to ParLOT's 25 bytes.
		if k <= 25 || k >= 600000 {
			t.Errorf("%s: %d bytes", compressors[i].Name, k)
		}
	}
	r2, err := Measure("../../testdata/parlot/oddeven4")
	if err != nil {
		t.Fatal(err)
	}
	if r2.Traces != 4 || r2.Events != 128 || r2.ParLOT != 80 {
		t.Fatalf("oddeven4: %+v", r2)
	}
	var b strings.Builder
	if err := WriteTable(&b, []Row{r, r2}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"| ParLOT | gzip -9 | xz -9 | zstd -19 |", "| 600000 | 25 (24000.0×) |", "| testdata/parlot/oddeven4 | 4 | 128 | 256 | 80 (3.2×) |"} {
		if !strings.Contains(out, strings.ReplaceAll(want, "testdata", "../../testdata")) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

func TestMeasureCorrupt(t *testing.T) {
	needCompressors(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x.0.0"), []byte{0xff, 1}, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Measure(dir); err == nil || !strings.Contains(err.Error(), "x.0.0") {
		t.Fatalf("corrupt trace: %v", err)
	}
}
