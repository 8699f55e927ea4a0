package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The committed example runs (make examples).
const runsDir = "../../testdata/runs"

func exampleRun(name string) string { return filepath.Join(runsDir, name) }

// absRun returns the absolute path of a committed run, for commands run in
// another directory.
func absRun(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(exampleRun(name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// readCSV parses CSV text, failing the test if it does not parse.
func readCSV(t *testing.T, text string) [][]string {
	t.Helper()
	r := csv.NewReader(strings.NewReader(text))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatalf("output is not CSV: %v\n%s", err, text)
	}
	return recs
}

func TestFilterCommand(t *testing.T) {
	run := exampleRun("oddeven4-normal")
	if got, want := ok(t, "filter", run, "--filter", "mpi", "--format", "count"), "TRACE\tKEPT\n0.0\t8\n1.0\t12\n2.0\t12\n3.0\t8\n"; got != want {
		t.Errorf("filter --format count:\n%s\nwant\n%s", got, want)
	}
	// mpi.sr keeps the exchanges only; a custom regexp adds findPtr.
	if got := ok(t, "filter", run, "--filter", "mpi.sr", "--format", "count"); got != "TRACE\tKEPT\n0.0\t4\n1.0\t8\n2.0\t8\n3.0\t4\n" {
		t.Errorf("filter mpi.sr:\n%s", got)
	}
	if got := ok(t, "filter", run, "--filter", "mpi.sr+cust=^findPtr$", "--format", "count"); got != "TRACE\tKEPT\n0.0\t8\n1.0\t12\n2.0\t12\n3.0\t8\n" {
		t.Errorf("filter mpi.sr+cust=^findPtr$:\n%s", got)
	}
	list := ok(t, "filter", run, "--filter", "mpi", "--trace", "3.0")
	if want := "== 3.0: 8 calls kept by mpi\nMPI_Init\nMPI_Comm_rank\nMPI_Comm_size\nMPI_Recv\nMPI_Send\nMPI_Recv\nMPI_Send\nMPI_Finalize\n"; list != want {
		t.Errorf("filter --trace 3.0:\n%s\nwant\n%s", list, want)
	}
	// json: one object per line that parses back.
	lines := strings.Split(strings.TrimSpace(ok(t, "filter", run, "--filter", "mpi", "--format", "json")), "\n")
	if len(lines) != 4 {
		t.Fatalf("filter --format json: %d lines, want 4", len(lines))
	}
	for i, l := range lines {
		var obj struct {
			Trace  string   `json:"trace"`
			Filter string   `json:"filter"`
			Calls  []string `json:"calls"`
		}
		if err := json.Unmarshal([]byte(l), &obj); err != nil {
			t.Fatalf("line %d does not parse: %v: %s", i, err, l)
		}
		if obj.Trace != []string{"0.0", "1.0", "2.0", "3.0"}[i] || obj.Filter != "mpi" || len(obj.Calls) != []int{8, 12, 12, 8}[i] || obj.Calls[0] != "MPI_Init" {
			t.Errorf("line %d: %+v", i, obj)
		}
	}
	// -o writes the same into a file, through a temporary name.
	dir := t.TempDir()
	out := filepath.Join(dir, "calls.txt")
	if got := ok(t, "filter", run, "--filter", "mpi", "--trace", "3.0", "-o", out); got != "" {
		t.Errorf("filter -o printed %q", got)
	}
	if string(mustRead(t, out)) != list {
		t.Errorf("filter -o wrote %q", mustRead(t, out))
	}
	assertNoTemps(t, dir)
}

func TestNLRCommand(t *testing.T) {
	run := exampleRun("oddeven4-normal")
	text := ok(t, "nlr", run, "--filter", "mpi", "--k", "10")
	for _, want := range []string{
		"0.0    8      2     MPI_Init, MPI_Comm_rank, MPI_Comm_size, L0^2, MPI_Finalize\n",
		"1.0    12     4     MPI_Init, MPI_Comm_rank, MPI_Comm_size, L1^4, MPI_Finalize\n",
		"2.0    12     4     MPI_Init, MPI_Comm_rank, MPI_Comm_size, L0^4, MPI_Finalize\n",
		"3.0    8      2     MPI_Init, MPI_Comm_rank, MPI_Comm_size, L1^2, MPI_Finalize\n",
		"  L0 = [MPI_Send, MPI_Recv]\n  L1 = [MPI_Recv, MPI_Send]\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("nlr lacks %q:\n%s", want, text)
		}
	}
	// K = 1 finds only one-call bodies: the exchanges stay unfolded.
	if k1 := ok(t, "nlr", run, "--filter", "mpi", "--k", "1", "--trace", "0.0"); !strings.Contains(k1, "MPI_Comm_size, MPI_Send, MPI_Recv, MPI_Send, MPI_Recv, MPI_Finalize") {
		t.Errorf("nlr --k 1:\n%s", k1)
	}

	// Two runs share one loop table: trace 5 of the swapBug.
	pair := ok(t, "nlr", exampleRun("oddeven-normal"), exampleRun("oddeven-swapbug"), "--filter", "mpi", "--trace", "5", "--format", "json")
	var doc struct {
		Filter string   `json:"filter"`
		K      int      `json:"k"`
		Runs   []string `json:"runs"`
		Traces []struct {
			Trace  string `json:"trace"`
			Run    string `json:"run"`
			Exists bool   `json:"exists"`
			Calls  int    `json:"calls"`
			NLR    string `json:"nlr"`
		} `json:"traces"`
	}
	if err := json.Unmarshal([]byte(pair), &doc); err != nil {
		t.Fatalf("nlr --format json does not parse: %v\n%s", err, pair)
	}
	if doc.Filter != "mpi" || doc.K != 10 || len(doc.Runs) != 2 || len(doc.Traces) != 2 {
		t.Fatalf("nlr json: %+v", doc)
	}
	head, tail := "MPI_Init, MPI_Comm_rank, MPI_Comm_size, ", ", MPI_Finalize"
	for i, want := range []string{"L1^16", "L1^7, L0^9"} {
		tr := doc.Traces[i]
		if tr.Trace != "5.0" || tr.Run != []string{"normal", "faulty"}[i] || !tr.Exists || tr.NLR != head+want+tail {
			t.Errorf("nlr json trace %d: %+v, want 5.0 = %s", i, tr, want)
		}
	}
}

func TestLatticeCommand(t *testing.T) {
	run := exampleRun("oddeven4-normal")
	text := ok(t, "lattice", run, "--filter", "mpi", "--attrs", "sing.noFreq")
	for _, want := range []string{
		"4 objects, 6 attributes, 2 classes, 4 concepts",
		`trace  MPI_Init  MPI_Comm_rank  MPI_Comm_size  L0  MPI_Finalize  L1
0.0       ×            ×              ×        ×        ×
1.0       ×            ×              ×                 ×        ×
2.0       ×            ×              ×        ×        ×
3.0       ×            ×              ×                 ×        ×
`,
		"{0.0, 1.0, 2.0, 3.0} × {MPI_Init, MPI_Comm_rank, MPI_Comm_size, MPI_Finalize} (top)",
		"{0.0, 2.0} × {MPI_Init, MPI_Comm_rank, MPI_Comm_size, L0, MPI_Finalize}",
		"{1.0, 3.0} × {MPI_Init, MPI_Comm_rank, MPI_Comm_size, MPI_Finalize, L1}",
		"{} × {MPI_Init, MPI_Comm_rank, MPI_Comm_size, L0, MPI_Finalize, L1} (bottom)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("lattice lacks %q:\n%s", want, text)
		}
	}
	// Frequencies split the edge ranks from the middle ones.
	if act := ok(t, "lattice", run, "--attrs", "sing.actual"); !strings.Contains(act, "4 objects, 8 attributes, 4 classes") || !strings.Contains(act, "L0:2") {
		t.Errorf("lattice --attrs sing.actual:\n%s", act)
	}
	// Process level of a one-thread-per-process run: the same shape.
	if proc := ok(t, "lattice", run, "--level", "process"); !strings.Contains(proc, "process level: 4 objects, 6 attributes, 2 classes, 4 concepts") {
		t.Errorf("lattice --level process:\n%s", proc)
	}

	// One run draws every -o given.
	dir := t.TempDir()
	args := []string{"lattice", run, "--filter", "mpi"}
	for _, ext := range []string{"dot", "svg", "png"} {
		args = append(args, "-o", filepath.Join(dir, "lattice."+ext))
	}
	r := difftrace(t, args...)
	if r.code != 0 || len(r.stdout) != 0 || strings.Count(string(r.stderr), "wrote ") != 3 {
		t.Errorf("difftrace %s: exit %d, stdout %q, stderr %q; want each picture written and named", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	for _, ext := range []string{"dot", "svg", "png"} {
		out := filepath.Join(dir, "lattice."+ext)
		b := mustRead(t, out)
		switch ext {
		case "dot":
			if !bytes.HasPrefix(b, []byte("digraph lattice {")) || !bytes.Contains(b, []byte("MPI_Finalize")) || bytes.Count(b, []byte(" -> ")) != 4 {
				t.Errorf("lattice.dot:\n%s", b)
			}
		case "svg":
			if !bytes.Contains(b, []byte("<svg")) || !bytes.Contains(b, []byte("MPI_Comm_rank")) {
				t.Errorf("lattice.svg is not an SVG of the lattice (%d bytes)", len(b))
			}
		case "png":
			if !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) || len(b) < 5000 {
				t.Errorf("lattice.png is not a PNG (%d bytes)", len(b))
			}
		}
	}
	assertNoTemps(t, dir)
}

func TestJSMCommand(t *testing.T) {
	run := exampleRun("oddeven4-normal")
	dir := t.TempDir()
	one := filepath.Join(dir, "jsm.csv")
	ok(t, "jsm", run, "--filter", "mpi", "-o", one)
	recs := readCSV(t, string(mustRead(t, one)))
	want := [][]string{
		{"trace", "0.0", "1.0", "2.0", "3.0"},
		{"0.0", "1", "0.666667", "1", "0.666667"},
		{"1.0", "0.666667", "1", "0.666667", "1"},
		{"2.0", "1", "0.666667", "1", "0.666667"},
		{"3.0", "0.666667", "1", "0.666667", "1"},
	}
	if !equalRecords(recs, want) {
		t.Errorf("jsm csv: %v\nwant %v", recs, want)
	}

	// Two runs: JSM_normal, JSM_faulty and JSM_D, one record per matrix
	// row with the matrix named first; the swapBug's trace 5 lights up its
	// row of JSM_D.
	pair := filepath.Join(dir, "pair.csv")
	ok(t, "jsm", exampleRun("oddeven-normal"), exampleRun("oddeven-swapbug"), "--filter", "mpi", "-o", pair)
	recs = readCSV(t, string(mustRead(t, pair)))
	if len(recs) != 1+3*16 || len(recs[0]) != 18 || recs[0][0] != "matrix" || recs[0][1] != "trace" || recs[0][17] != "15.0" {
		t.Fatalf("jsm csv of two runs: %d records, header %v", len(recs), recs[0])
	}
	count := map[string]int{}
	for _, r := range recs[1:] {
		count[r[0]]++
		if r[0] != "JSM_D" {
			continue
		}
		for j, v := range r[2:] {
			if changed := v != "0"; changed != (r[1] == "5.0" && j != 5 || r[1] != "5.0" && j == 5) {
				t.Errorf("JSM_D[%s][%d] = %s; want a change in row and column 5 only", r[1], j, v)
			}
		}
	}
	if count["JSM_normal"] != 16 || count["JSM_faulty"] != 16 || count["JSM_D"] != 16 {
		t.Errorf("jsm csv of two runs: rows per matrix %v", count)
	}

	r := difftrace(t, "jsm", exampleRun("oddeven-normal"), exampleRun("oddeven-swapbug"), "--attrs", "doub.actual",
		"-o", filepath.Join(dir, "jsm.png"), "-o", filepath.Join(dir, "jsm.svg"))
	if r.code != 0 || !strings.Contains(string(r.stderr), "wrote "+filepath.Join(dir, "jsm.png")+"\n") || !strings.Contains(string(r.stderr), "wrote "+filepath.Join(dir, "jsm.svg")+"\n") {
		t.Errorf("jsm -o jsm.png -o jsm.svg: exit %d, stderr %q", r.code, r.stderr)
	}
	for _, ext := range []string{"png", "svg"} {
		out := filepath.Join(dir, "jsm."+ext)
		b := mustRead(t, out)
		if ext == "png" && !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) || ext == "svg" && !bytes.Contains(b, []byte("<svg")) {
			t.Errorf("jsm.%s is not a %s (%d bytes)", ext, ext, len(b))
		}
	}
	// Text on standard output, one matrix per run.
	text := ok(t, "jsm", run, "--k", "5", "--attrs", "sing.log10")
	if !strings.Contains(text, "filter mpi, K = 5, attributes sing.log10, thread level") || !strings.Contains(text, " 0.0 1.00 ") {
		t.Errorf("jsm text:\n%s", text)
	}
	assertNoTemps(t, dir)
}

func equalRecords(a, b [][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if strings.Join(a[i], "\x00") != strings.Join(b[i], "\x00") {
			return false
		}
	}
	return true
}

// rankJSON is the part of rank --format json the tests read.
type rankJSON struct {
	Normal  string   `json:"normal"`
	Faulty  string   `json:"faulty"`
	Filters []string `json:"filters"`
	Ks      []int    `json:"k"`
	Attrs   []string `json:"attrs"`
	Links   []string `json:"linkages"`
	Dropped []struct {
		Filter string `json:"filter"`
		SameAs string `json:"same_as"`
	} `json:"dropped"`
	Rows []struct {
		Filter     string  `json:"filter"`
		K          int     `json:"k"`
		Attrs      string  `json:"attrs"`
		Linkage    string  `json:"linkage"`
		BScore     float64 `json:"bscore"`
		Clusters   int     `json:"clusters"`
		TopThreads []struct {
			ID       string  `json:"id"`
			Score    float64 `json:"score"`
			Progress float64 `json:"progress_change"`
		} `json:"top_threads"`
		TopProcesses []struct {
			ID string `json:"id"`
		} `json:"top_processes"`
	} `json:"rows"`
	Threads []struct {
		ID     string `json:"id"`
		First  int    `json:"first"`
		Listed int    `json:"listed"`
	} `json:"consensus_threads"`
	Processes []struct {
		ID    string `json:"id"`
		First int    `json:"first"`
	} `json:"consensus_processes"`
	OnlyNormal []string `json:"only_normal"`
	OnlyFaulty []string `json:"only_faulty"`
}

func parseRankJSON(t *testing.T, b []byte) rankJSON {
	t.Helper()
	var rk rankJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&rk); err != nil {
		t.Fatalf("rank json does not parse: %v\n%s", err, b)
	}
	return rk
}

// TestRankCommand runs rank in a fresh working directory: the table, the
// session it leaves in .difftrace/, and the JSON and CSV forms.
func TestRankCommand(t *testing.T) {
	normal, faulty := absRun(t, "oddeven-normal"), absRun(t, "oddeven-swapbug")
	dir := t.TempDir()
	r := difftraceAt(t, dir, nil, "rank", normal, faulty)
	if r.code != 0 {
		t.Fatalf("rank: exit %d: %s", r.code, r.stderr)
	}
	table := string(r.stdout)
	for _, want := range []string{
		"grid    4 filters × K 10 × 6 attribute modes × 4 linkages = 96 combinations\n",
		"        filters: mpi, mpi.sr, str, all\n",
		"left out, no call kept in these runs: mpi.col, mpi.int, omp, omp.crit, omp.mutex, mem, net, poll\n",
		"FILTER  K   ATTRIBUTES   LINKAGE   B-SCORE  TOP PROCESSES  TOP THREADS\n",
		"… 76 more rows (--rows 0 shows all)\n",
		"consensus, threads: 5.0 was the most suspicious in 72 of 96 combinations\n",
		"consensus, processes: 5 was the most suspicious in 72 of 96 combinations\n",
		"how it changed: difftrace diffnlr 5\n",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("rank table lacks %q:\n%s", want, table)
		}
	}

	// The session: absolute run paths, the grid, the best row and the
	// consensus leaders; the whole ranking beside it.
	var s struct {
		Schema     int                      `json:"schema"`
		Normal     string                   `json:"normal"`
		Faulty     string                   `json:"faulty"`
		Filters    []string                 `json:"filters"`
		Ks         []int                    `json:"k"`
		Attrs      []string                 `json:"attrs"`
		Linkages   []string                 `json:"linkages"`
		Best       *struct{ Filter string } `json:"best"`
		TopThread  string                   `json:"top_thread"`
		TopProcess string                   `json:"top_process"`
	}
	if err := json.Unmarshal(mustRead(t, filepath.Join(dir, ".difftrace", "session.json")), &s); err != nil {
		t.Fatalf("session.json: %v", err)
	}
	if s.Schema != 1 || s.Normal != normal || s.Faulty != faulty || strings.Join(s.Filters, ",") != "mpi,mpi.sr,str,all" ||
		len(s.Ks) != 1 || s.Ks[0] != 10 || len(s.Attrs) != 6 || strings.Join(s.Linkages, ",") != "ward,average,complete,single" ||
		s.Best == nil || s.TopThread != "5.0" || s.TopProcess != "5" {
		t.Errorf("session.json: %+v", s)
	}
	saved := parseRankJSON(t, mustRead(t, filepath.Join(dir, ".difftrace", "ranking.json")))
	if len(saved.Rows) != 96 || saved.Threads[0].ID != "5.0" || saved.Threads[0].First != 72 {
		t.Errorf("ranking.json: %d rows, consensus %+v", len(saved.Rows), saved.Threads)
	}
	assertNoTemps(t, filepath.Join(dir, ".difftrace"))

	// JSON on standard output is the same ranking.
	r = difftraceAt(t, dir, nil, "rank", normal, faulty, "--format", "json", "--no-session")
	if r.code != 0 {
		t.Fatalf("rank --format json: %s", r.stderr)
	}
	if !bytes.Equal(r.stdout, mustRead(t, filepath.Join(dir, ".difftrace", "ranking.json"))) {
		t.Error("rank --format json differs from the saved ranking.json")
	}
	rk := parseRankJSON(t, r.stdout)
	if rk.Normal != normal || len(rk.Dropped) != 8 || rk.Rows[0].TopThreads[0].ID != "5.0" || rk.Rows[0].TopProcesses[0].ID != "5" {
		t.Errorf("rank json: normal %q, %d dropped, first row %+v", rk.Normal, len(rk.Dropped), rk.Rows[0])
	}
	for i := 1; i < len(rk.Rows); i++ {
		if rk.Rows[i].BScore < rk.Rows[i-1].BScore {
			t.Fatalf("json rows not sorted by B-score at %d", i)
		}
	}

	// CSV: a header and one record per row, in the same order.
	r = difftraceAt(t, dir, nil, "rank", normal, faulty, "--format", "csv", "--no-session")
	recs := readCSV(t, string(r.stdout))
	if len(recs) != 97 || strings.Join(recs[0], ",") != "filter,k,attrs,linkage,bscore,clusters,process_bscore,process_clusters,top_processes,top_threads" {
		t.Fatalf("rank csv: %d records, header %v", len(recs), recs[0])
	}
	for i, rec := range recs[1:] {
		row := rk.Rows[i]
		if rec[0] != row.Filter || rec[2] != row.Attrs || rec[3] != row.Linkage {
			t.Errorf("csv record %d %v, json row %+v", i, rec, row)
		}
		if len(row.TopThreads) > 0 && !strings.HasPrefix(rec[9], row.TopThreads[0].ID) {
			t.Errorf("csv record %d top threads %q, want %s first", i, rec[9], row.TopThreads[0].ID)
		}
	}
}

// TestRankFlags: --filters, --k, --attrs, --linkage and --custom shape the
// grid; --no-session leaves the directory alone; -o writes a file.
func TestRankFlags(t *testing.T) {
	normal, faulty := absRun(t, "oddeven-normal"), absRun(t, "oddeven-swapbug")
	dir := t.TempDir()
	out := filepath.Join(dir, "ranking.json")
	r := difftraceAt(t, dir, nil, "rank", normal, faulty, "--filters", "mpi,mpi.sr+cust=^findPtr$", "--k", "2,10", "--attrs", "sing.noFreq,doub.log10",
		"--linkage", "ward,single", "--format", "json", "-o", out, "--no-session")
	if r.code != 0 || len(r.stdout) != 0 {
		t.Fatalf("rank -o: exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, ".difftrace")); err == nil {
		t.Error("--no-session wrote .difftrace/")
	}
	rk := parseRankJSON(t, mustRead(t, out))
	if strings.Join(rk.Filters, " ") != "mpi mpi.sr+cust=^findPtr$" || len(rk.Ks) != 2 || strings.Join(rk.Attrs, " ") != "sing.noFreq doub.log10" ||
		strings.Join(rk.Links, " ") != "ward single" || len(rk.Rows) != 2*2*2*2 || len(rk.Dropped) != 0 {
		t.Errorf("grid: filters %v, k %v, attrs %v, linkages %v, %d rows, dropped %v", rk.Filters, rk.Ks, rk.Attrs, rk.Links, len(rk.Rows), rk.Dropped)
	}
	ks := map[int]int{}
	for _, row := range rk.Rows {
		ks[row.K]++
		if len(row.TopThreads) > 0 && row.TopThreads[0].ID != "5.0" {
			t.Errorf("row %+v: top thread %s", row, row.TopThreads[0].ID)
		}
	}
	if ks[2] != 8 || ks[10] != 8 {
		t.Errorf("rows per K: %v", ks)
	}
	// --custom adds the regexp to every default filter; --linkage all
	// sweeps the seven linkages.
	r = difftraceAt(t, dir, nil, "rank", normal, faulty, "--custom", "^findPtr$", "--linkage", "all", "--attrs", "sing.noFreq", "--format", "json", "--no-session")
	rk = parseRankJSON(t, r.stdout)
	if len(rk.Links) != 7 || len(rk.Filters) == 0 {
		t.Fatalf("--custom, --linkage all: %v, %v", rk.Filters, rk.Links)
	}
	for _, f := range rk.Filters {
		if !strings.HasSuffix(f, "+cust=^findPtr$") {
			t.Errorf("filter %q lacks the custom regexp", f)
		}
	}
	// Runs with different trace sets: the table says which traces are in
	// one run only.
	r = difftraceAt(t, dir, nil, "rank", absRun(t, "oddeven4-normal"), normal, "--filters", "mpi", "--no-session")
	if !strings.Contains(string(r.stdout), "only in the faulty run: 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0 (compared as traces with no calls in the normal run)\n") {
		t.Errorf("rank of 4 against 16 ranks:\n%s", r.stdout)
	}
	if strings.Count(string(r.stdout), "only in") != 1 {
		t.Errorf("the traces of one run only are reported more than once:\n%s", r.stdout)
	}
}

// TestAnalysisErrors: bad input to filter, nlr, lattice, jsm and rank is
// one line that says what was wrong and what would do, and a non-zero exit.
func TestAnalysisErrors(t *testing.T) {
	run, normal, faulty := exampleRun("oddeven4-normal"), exampleRun("oddeven-normal"), exampleRun("oddeven-swapbug")
	valid := []string{"valid terms: all, mpi, mpi.col, mpi.sr", "omp.crit", "cust=REGEXP"}
	for _, args := range [][]string{
		{"filter", run, "--filter", "bogus"},
		{"nlr", run, "--filter", "mpi+bogus"},
		{"lattice", run, "--filter", "bogus"},
		{"jsm", run, "--filter", "bogus"},
		{"rank", normal, faulty, "--filters", "mpi,bogus"},
	} {
		fails(t, append([]string{`unknown filter "bogus"`}, valid...), args...)
	}
	missing := filepath.Join(t.TempDir(), "nowhere")
	for _, args := range [][]string{
		{"filter", missing}, {"nlr", run, missing}, {"lattice", missing}, {"jsm", missing}, {"rank", normal, missing},
	} {
		fails(t, []string{missing, "no such run directory"}, args...)
	}
	for _, args := range [][]string{
		{"nlr", run, "--k", "0"}, {"lattice", run, "--k", "-3"}, {"jsm", run, "--k", "10001"}, {"rank", normal, faulty, "--k", "10,0"},
	} {
		fails(t, []string{"--k", "the longest loop body must be between 1 and 10000"}, args...)
	}
	fails(t, []string{`invalid argument "ten" for "--k"`, "see difftrace rank --help"}, "rank", normal, faulty, "--k", "ten")
	fails(t, []string{`--attrs: attribute mode "doub.often"`, "sing.noFreq"}, "rank", normal, faulty, "--attrs", "doub.often")
	fails(t, []string{`--attrs: attribute mode "x"`}, "lattice", run, "--attrs", "x")
	fails(t, []string{`--linkage`, `"wrd"`, "ward"}, "rank", normal, faulty, "--linkage", "wrd")
	fails(t, []string{`--format "xml": want table, json or csv`}, "rank", normal, faulty, "--format", "xml")
	fails(t, []string{`--format "yaml": want text or json`}, "nlr", run, "--format", "yaml")
	fails(t, []string{`--level: level "node"`}, "jsm", run, "--level", "node")
	fails(t, []string{"rank takes one run directory, or two", "got 3 argument", "usage: difftrace rank NORMAL FAULTY | rank RUN"}, "rank", normal, faulty, run)
	fails(t, []string{"lattice takes one run directory", "got 2"}, "lattice", run, run)
	fails(t, []string{"x.jpg", `".jpg"`, ".png"}, "lattice", run, "-o", filepath.Join(t.TempDir(), "x.jpg"))
	fails(t, []string{"x.gif", `".gif"`, ".csv"}, "jsm", run, "-o", filepath.Join(t.TempDir(), "x.gif"))
	fails(t, []string{"no trace 9.0"}, "filter", run, "--trace", "9.0")

	// A filter that keeps nothing is not an error, but is said: the rows
	// are blank.
	for _, args := range [][]string{
		{"filter", run, "--filter", "omp"}, {"nlr", run, "--filter", "omp"}, {"lattice", run, "--filter", "omp"}, {"jsm", run, "--filter", "omp"},
	} {
		r := difftrace(t, args...)
		if r.code != 0 || !strings.Contains(string(r.stderr), "note: filter omp keeps no call of these traces; try another --filter") {
			t.Errorf("difftrace %s: exit %d, stderr %q", strings.Join(args, " "), r.code, r.stderr)
		}
	}
	if r := difftrace(t, "nlr", run, "--filter", "mpi"); strings.Contains(string(r.stderr), "keeps no call") {
		t.Errorf("nlr --filter mpi: %s", r.stderr)
	}
}

// Every analysis command explains itself with examples.
func TestAnalysisHelp(t *testing.T) {
	for _, c := range []string{"filter", "nlr", "lattice", "jsm", "rank"} {
		h := ok(t, c, "--help")
		if !strings.Contains(h, "Examples:\n  difftrace "+c) || !strings.Contains(h, "Usage:") || !strings.Contains(h, "--k") && c != "filter" {
			t.Errorf("%s --help:\n%s", c, h)
		}
	}
}
