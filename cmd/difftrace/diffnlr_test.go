package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// okIn runs difftrace in dir and fails the test unless it succeeds.
func okIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	r := difftraceAt(t, dir, nil, args...)
	if r.code != 0 {
		t.Fatalf("difftrace %s: exit %d: %s", strings.Join(args, " "), r.code, r.stderr)
	}
	return string(r.stdout)
}

// diffBody returns the text diff between its "+++ faulty" header and the
// first empty line.
func diffBody(t *testing.T, out string) string {
	t.Helper()
	_, body, ok := strings.Cut(out, "+++ faulty\n")
	if !ok {
		t.Fatalf("no diff in the output:\n%s", out)
	}
	body, _, _ = strings.Cut(body, "\n\n")
	return body + "\n"
}

// Fig. 3.5b: swapBug. Rank 5 swaps send and receive after its seventh
// iteration: L1^16 in the normal run against L1^7, L0^9 in the faulty one,
// both ending in MPI_Finalize.
func TestDiffNLRSwapBug(t *testing.T) {
	out := ok(t, "diffnlr", "5", "--normal", absRun(t, "oddeven-normal"), "--faulty", absRun(t, "oddeven-swapbug"), "--filter", "mpi", "--k", "10")
	want := `  MPI_Init
  MPI_Comm_rank
  MPI_Comm_size
- L1^16
+ L1^7  (L1 ×16 → ×7, then L0 ×9: in iterations 8–16, the same calls in another order: [MPI_Recv, MPI_Send] then [MPI_Send, MPI_Recv])
+ L0^9
  MPI_Finalize
`
	if got := diffBody(t, out); got != want {
		t.Errorf("diffNLR(5) of swapBug:\n%s\nwant\n%s", got, want)
	}
	for _, l := range []string{"diffNLR(5): filter mpi, K 10\n", "loops:\n  L0 = [MPI_Send, MPI_Recv]\n  L1 = [MPI_Recv, MPI_Send]\n"} {
		if !strings.Contains(out, l) {
			t.Errorf("output lacks %q:\n%s", l, out)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Error("colours on a pipe with --color auto")
	}
	// Process 5 is its one thread, 5.0.
	if out5 := ok(t, "diffnlr", "5.0", "--normal", absRun(t, "oddeven-normal"), "--faulty", absRun(t, "oddeven-swapbug")); diffBody(t, out5) != want {
		t.Errorf("diffNLR(5.0) differs from diffNLR(5):\n%s", out5)
	}
}

// Fig. 3.6: dlBug. Rank 5 blocks in a receive after seven iterations of L1:
// the faulty trace ends there and never reaches MPI_Finalize.
func TestDiffNLRDeadlockBug(t *testing.T) {
	out := ok(t, "diffnlr", "5", "--normal", absRun(t, "oddeven-normal"), "--faulty", absRun(t, "oddeven-dlbug"), "--filter", "mpi", "--k", "10")
	want := `  MPI_Init
  MPI_Comm_rank
  MPI_Comm_size
- L1^16
- MPI_Finalize
+ L1^7  (L1 ×16 → ×7)
+ MPI_Recv  <- faulty trace ends here (killed by the timeout)
`
	if got := diffBody(t, out); got != want {
		t.Errorf("diffNLR(5) of dlBug:\n%s\nwant\n%s", got, want)
	}
}

// Fig. 3.7a: ILCS worker 6.4 updates its champion without the critical
// section. Under memory, OpenMP critical and CPU_Exec calls (the filter
// 11.mem.ompcrit.cust of Table 3.6) the critical section around memcpy
// shows on the normal side only.
func TestDiffNLRCritBug(t *testing.T) {
	out := ok(t, "diffnlr", "6.4", "--normal", absRun(t, "ilcs-normal"), "--faulty", absRun(t, "ilcs-critbug"),
		"--filter", "mem+omp.crit+cust=CPU_Exec", "--k", "10")
	body := diffBody(t, out)
	if !strings.Contains(body, "- GOMP_critical_start\n  memcpy\n- GOMP_critical_end\n") {
		t.Errorf("no critical section around memcpy on the normal side:\n%s", body)
	}
	if !strings.Contains(body, "+ memcpy\n") {
		t.Errorf("no unprotected memcpy on the faulty side:\n%s", body)
	}
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, "+") && strings.Contains(l, "GOMP_critical") {
			t.Errorf("the faulty run enters a critical section: %q", l)
		}
	}
	if !strings.Contains(out, "L1 = [CPU_Exec]") {
		t.Errorf("CPU_Exec is not a loop of its own:\n%s", out)
	}
	// The other workers of process 6 kept their critical sections: in the
	// diffNLR of the process only 6.4's section changes them.
	proc := ok(t, "diffnlr", "6", "--normal", absRun(t, "ilcs-normal"), "--faulty", absRun(t, "ilcs-critbug"),
		"--filter", "mem+omp.crit+cust=CPU_Exec")
	sections := strings.Split(diffBody(t, proc), "@@ thread ")
	if len(sections) != 6 {
		t.Fatalf("diffNLR(6): %d sections, want 5 threads:\n%s", len(sections)-1, proc)
	}
	for _, s := range sections[1:] {
		changed := strings.Contains(s, "- GOMP_critical")
		if changed != strings.HasPrefix(s, "6.4 @@") {
			t.Errorf("diffNLR(6): section %q changes critical sections: %v", strings.SplitN(s, "\n", 2)[0], changed)
		}
	}
}

// Fig. 3.7b: process 2 passes a wrong count to MPI_Allreduce and the run
// deadlocks. Every process's diffNLR shows the same start, then the faulty
// run stopping in the collectives while the normal one goes on to
// MPI_Finalize: at MPI_Allreduce for everyone but process 2, which skipped
// its first collective and went on to MPI_Bcast.
func TestDiffNLRAllreduceDeadlock(t *testing.T) {
	normal, faulty := absRun(t, "ilcs-normal"), absRun(t, "ilcs-dlbug")
	for p := range 8 {
		out := ok(t, "diffnlr", fmt.Sprint(p), "--normal", normal, "--faulty", faulty)
		body := diffBody(t, out)
		head := fmt.Sprintf("@@ thread %d.0 @@\n  MPI_Init\n  MPI_Comm_size\n  MPI_Comm_rank\n  MPI_Reduce\n  MPI_Reduce\n  MPI_Barrier\n", p)
		if !strings.HasPrefix(body, head) {
			t.Errorf("diffNLR(%d) does not start with the common MPI set-up:\n%s", p, body)
		}
		if !strings.Contains(body, "- MPI_Finalize\n") || strings.Contains(body, "+ MPI_Finalize") || strings.Contains(body, "  MPI_Finalize") {
			t.Errorf("diffNLR(%d): MPI_Finalize should be on the normal side only:\n%s", p, body)
		}
		end := "+ MPI_Allreduce\n+ MPI_Allreduce  <- faulty trace ends here (killed by the timeout)\n"
		if p == 2 {
			end = "+ MPI_Allreduce\n+ MPI_Allreduce\n+ MPI_Bcast  <- faulty trace ends here (killed by the timeout)\n"
		}
		if !strings.HasSuffix(body, end) {
			t.Errorf("diffNLR(%d) should end with\n%s\ngot\n%s", p, end, body)
		}
		if !strings.Contains(out, fmt.Sprintf("no call kept in either run: threads %d.1, %d.2, %d.3, %d.4\n", p, p, p, p)) {
			t.Errorf("diffNLR(%d) does not name the workers without MPI calls:\n%s", p, out)
		}
	}
}

// The session path: rank saves the best combination, diffnlr follows it
// and draws the picture in every format.
func TestDiffNLRSession(t *testing.T) {
	dir := t.TempDir()
	// Without a session and without runs, diffnlr says what to do.
	r := difftraceAt(t, dir, nil, "diffnlr", "5")
	if r.code == 0 || !strings.Contains(string(r.stderr), `run "difftrace rank NORMAL FAULTY" in this directory first, or give --normal and --faulty`) ||
		strings.Count(string(r.stderr), "\n") != 1 {
		t.Errorf("diffnlr without a session: exit %d, %q", r.code, r.stderr)
	}

	okIn(t, dir, "rank", absRun(t, "oddeven-normal"), absRun(t, "oddeven-swapbug"))
	var s struct {
		Suggestion struct {
			Trace  string `json:"trace"`
			Filter string `json:"filter"`
			K      int    `json:"k"`
		} `json:"suggestion"`
	}
	b, err := os.ReadFile(filepath.Join(dir, ".difftrace", "session.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &s); err != nil || s.Suggestion.Filter == "" || s.Suggestion.Trace != "5" {
		t.Fatalf("session: %v %s", err, b)
	}
	// With no flags, diffnlr shows the view rank suggested.
	out := okIn(t, dir, "diffnlr", "5", "-o", "x.svg", "-o", "x.png", "-o", "x.dot")
	head := fmt.Sprintf("diffNLR(5): filter %s, K %d (the clearest diff among the ranking's rows where 5 is the top suspect)\nnormal  %s\nfaulty  %s\n",
		s.Suggestion.Filter, s.Suggestion.K, absRun(t, "oddeven-normal"), absRun(t, "oddeven-swapbug"))
	if !strings.HasPrefix(out, head) {
		t.Errorf("diffnlr does not follow the session; want the header\n%s\ngot\n%s", head, out)
	}
	if !strings.Contains(out, "- L1^16\n"+`+ L1^7  (L1 ×16 → ×7, then L0 ×9: in iterations 8–16, the same calls in another order: [MPI_Recv, MPI_Send] then [MPI_Send, MPI_Recv])`+"\n+ L0^9\n") {
		t.Errorf("diffNLR(5) under the session's parameters:\n%s", out)
	}
	// Flags override the session's filter and K.
	if out := okIn(t, dir, "diffnlr", "5", "--filter", "all", "--k", "4"); !strings.HasPrefix(out, "diffNLR(5): filter all, K 4 (runs from .difftrace/session.json)\n") {
		t.Errorf("--filter and --k do not override the session:\n%s", out)
	}

	svg, err := os.ReadFile(filepath.Join(dir, "x.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(svg, new(struct{})); err != nil {
		t.Errorf("x.svg is not XML: %v", err)
	}
	for _, want := range []string{"L1^16", "L1^7", "L0^9", "MPI_Finalize", "#dce8fb", "#fbdfdd", "#e2f3df"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("x.svg lacks %q", want)
		}
	}
	f, err := os.Open(filepath.Join(dir, "x.png"))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatalf("x.png: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 400 || b.Dy() < 400 {
		t.Errorf("x.png is only %d×%d pixels", b.Dx(), b.Dy())
	}
	dot, err := os.ReadFile(filepath.Join(dir, "x.dot"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"digraph diffNLR", `fillcolor="#e2f3df"`, `fillcolor="#dce8fb"`, `fillcolor="#fbdfdd"`, `label="L1^16"`} {
		if !bytes.Contains(dot, []byte(want)) {
			t.Errorf("x.dot lacks %q", want)
		}
	}
	assertNoTemps(t, dir)

	// The same picture again, byte for byte.
	okIn(t, dir, "diffnlr", "5", "-o", "y.png")
	if again, _ := os.ReadFile(filepath.Join(dir, "y.png")); !bytes.Equal(again, mustRead(t, filepath.Join(dir, "x.png"))) {
		t.Error("drawing the same diffNLR twice gave different PNGs")
	}
}

func TestDiffNLRColorAndAbridging(t *testing.T) {
	normal, faulty := absRun(t, "ilcs-normal"), absRun(t, "ilcs-critbug")
	out := ok(t, "diffnlr", "6.4", "--normal", normal, "--faulty", faulty, "--filter", "mem+omp.crit+cust=CPU_Exec", "--color", "always")
	for _, want := range []string{"\x1b[34m- GOMP_critical_start\x1b[0m", "\x1b[31m+ memcpy\x1b[0m"} {
		if !strings.Contains(out, want) {
			t.Errorf("--color always lacks %q:\n%q", want, out)
		}
	}
	// Every rank of the critbug run exited with status 0: its traces end
	// where the program ended, and nothing says they were cut short.
	if strings.Contains(out, "ends here") {
		t.Errorf("a clean exit is marked as the trace's end:\n%s", out)
	}
	hung := ok(t, "diffnlr", "5", "--normal", absRun(t, "oddeven-normal"), "--faulty", absRun(t, "oddeven-dlbug"), "--color", "always")
	if want := "\x1b[1;31m<- faulty trace ends here (killed by the timeout)\x1b[0m"; !strings.Contains(hung, want) {
		t.Errorf("--color always lacks %q:\n%q", want, hung)
	}
	if out := ok(t, "diffnlr", "6.4", "--normal", normal, "--faulty", faulty, "--color", "never"); strings.Contains(out, "\x1b[") {
		t.Error("--color never printed colours")
	}
	// Process 6 under every call: a thread without changes is one line,
	// and --full shows them all.
	short := ok(t, "diffnlr", "6", "--normal", normal, "--faulty", faulty, "--filter", "all", "--context", "1")
	full := ok(t, "diffnlr", "6", "--normal", normal, "--faulty", faulty, "--filter", "all", "--full")
	if !strings.Contains(short, "@@ thread 6.0: unchanged @@") || !strings.Contains(full, "@@ thread 6.0 @@") ||
		strings.Contains(full, " more common") || strings.Contains(full, " more changes") || strings.Contains(full, "unchanged") {
		t.Errorf("abridging: --context 1 hides nothing or --full hides something:\n%s\n%s", short, full)
	}
	if len(full) <= len(short) {
		t.Error("--full is not longer than --context 1")
	}
}

func TestDiffNLRErrors(t *testing.T) {
	normal, swap := absRun(t, "oddeven-normal"), absRun(t, "oddeven-swapbug")
	four := absRun(t, "oddeven4-normal")
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"99", "--normal", normal, "--faulty", swap}, []string{"process 99: not in", "the processes are 0 … 15"}},
		{[]string{"5.3", "--normal", normal, "--faulty", swap}, []string{"trace 5.3: not in", "the traces are 0.0 … 15.0"}},
		{[]string{"x.1", "--normal", normal, "--faulty", swap}, []string{`trace id "x.1": want P.T (process.thread, e.g. 6.4) or P (a process, e.g. 5)`}},
		{[]string{"5", "--normal", four, "--faulty", normal}, []string{"process 5 exists only in the faulty run (" + normal + "), not in the normal run (" + four + ")"}},
		{[]string{"7.0", "--normal", normal, "--faulty", four}, []string{"trace 7.0 exists only in the normal run"}},
		{[]string{"5", "--normal", normal}, []string{"--normal and --faulty go together"}},
		{[]string{"5", "--normal", normal, "--faulty", swap, "-o", filepath.Join(dir, "x.jpg")}, []string{"unknown format \".jpg\"", "*.svg, *.png or *.dot"}},
		{[]string{"5", "--normal", normal, "--faulty", swap, "-o", dir}, []string{"is a directory"}},
		{[]string{"5", "--normal", normal, "--faulty", swap, "-o", filepath.Join(dir, "no", "x.svg")}, []string{"does not exist; create it first"}},
		{[]string{"5", "--normal", normal, "--faulty", swap, "--color", "red"}, []string{`--color "red"`, "auto, always or never"}},
		{[]string{"5", "--normal", normal, "--faulty", swap, "--context", "0"}, []string{"--context 0", "-1 for no limit"}},
		{[]string{"5", "--normal", normal, "--faulty", swap, "--k", "0"}, []string{"--k 0"}},
		{[]string{"5", "--normal", normal, "--faulty", swap, "--filter", "mpi+nonsense"}, []string{"--filter"}},
		{[]string{"5", "--normal", filepath.Join(dir, "missing"), "--faulty", swap}, []string{"missing"}},
	} {
		fails(t, c.want, append([]string{"diffnlr"}, c.args...)...)
	}
	assertNoTemps(t, dir)
	if _, err := os.Stat(filepath.Join(dir, "x.jpg")); err == nil {
		t.Error("x.jpg was written")
	}
	// A trace the filter keeps nothing of is two empty traces, with a hint.
	r := difftrace(t, "diffnlr", "5", "--normal", normal, "--faulty", swap, "--filter", "omp")
	if r.code != 0 || !strings.Contains(string(r.stdout), "(both traces are empty)") || !strings.Contains(string(r.stderr), "keeps no call of 5 in either run") {
		t.Errorf("empty traces: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// The difftrace command does not link go-graphviz, whose package init
// compiles a WebAssembly module: pictures are drawn by difftrace-draw.
func TestDifftraceDoesNotLinkGraphviz(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "go-graphviz") || strings.Contains(string(out), "wazero") {
		t.Errorf("difftrace links go-graphviz:\n%s", out)
	}
	out, err = exec.Command("go", "list", "-deps", "../difftrace-draw").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "github.com/goccy/go-graphviz\n") {
		t.Error("difftrace-draw does not link go-graphviz")
	}
}

// The command rank suggests shows a change, for every committed pair where
// a trace changed its calls; diffnlr of another trace picks its own view by
// the same rule, or says plainly that no filter shows it changed; the
// run-wide command-line parsing is left out and said once.
func TestSuggestedDiffShowsTheChange(t *testing.T) {
	for _, p := range [][2]string{
		{"oddeven-normal", "oddeven-swapbug"}, {"oddeven-normal", "oddeven-dlbug"},
		{"ilcs-normal", "ilcs-critbug"}, {"ilcs-normal", "ilcs-dlbug"}, {"ilcs-normal", "ilcs-maxbug"},
		{"stencil-normal", "stencil-skipbug"},
	} {
		dir := t.TempDir()
		out := okIn(t, dir, "rank", absRun(t, p[0]), absRun(t, p[1]))
		_, cmdline, found := strings.Cut(out, "how it changed: difftrace ")
		if p[1] == "ilcs-maxbug" {
			if found || !strings.Contains(out, "no trace stands out") || !strings.Contains(out, "run-wide changes:") {
				t.Errorf("%s: want no suggestion, and the run-wide change said:\n%s", p[1], out)
			}
			continue
		}
		if !found {
			t.Fatalf("%s: rank suggests nothing:\n%s", p[1], out)
		}
		args := strings.Fields(strings.SplitN(cmdline, "\n", 2)[0])
		diff := okIn(t, dir, append(args, "--color", "never")...)
		body := diffBody(t, diff)
		if !strings.Contains(body, "\n- ") && !strings.Contains(body, "\n+ ") && !strings.HasPrefix(body, "- ") && !strings.HasPrefix(body, "+ ") {
			t.Errorf("%s: %s shows no change:\n%s", p[1], strings.Join(args, " "), diff)
		}
		if strings.Contains(diff, "strcmp") {
			t.Errorf("%s: the run-wide command-line parsing shows in the diff of one trace:\n%s", p[1], diff)
		}
		if n := strings.Count(diff, "\n"); n > 30 {
			t.Errorf("%s: the suggested diff takes %d lines, more than 30:\n%s", p[1], n, diff)
		}
		// The C++ rank that skipped its halo exchange in the sixth step: the
		// suggestion names it, the iteration and the skipped call.
		if p[1] == "stencil-skipbug" && (args[1] != "3" || !strings.Contains(diff, "first difference: iteration 6 of 12 of the loop over driver::Simulation::step") ||
			!strings.Contains(diff, "> driver::Simulation::exchange: halo::Exchanger::exchange missing")) {
			t.Errorf("%s: %s does not show rank 3 skipping its halo exchange in iteration 6:\n%s", p[1], strings.Join(args, " "), diff)
		}
	}

	// 6.0 of the swapBug run changed nothing but its command line.
	dir := t.TempDir()
	okIn(t, dir, "rank", absRun(t, "oddeven-normal"), absRun(t, "oddeven-swapbug"))
	r := difftraceAt(t, dir, nil, "diffnlr", "6", "--color", "never")
	if r.code != 0 || !strings.Contains(string(r.stderr), "no filter of the ranking shows a change in the calls of 6") {
		t.Errorf("diffnlr 6: exit %d, stderr %q", r.code, r.stderr)
	}
	// 4.0 of the dlBug run is a suspect: its own view, from the rows
	// where it is one.
	okIn(t, dir, "rank", absRun(t, "oddeven-normal"), absRun(t, "oddeven-dlbug"))
	if out := okIn(t, dir, "diffnlr", "4", "--color", "never"); !strings.Contains(out, "where 4 is ") || !strings.Contains(out, "+ ") {
		t.Errorf("diffnlr 4 after rank of the dlBug run:\n%s", out)
	}
}
