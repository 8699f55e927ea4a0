package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// badRun returns a copy of oddeven4 for breaking.
func badRun(t *testing.T) string { return copyDir(t, filepath.Join(fixtureDir, "oddeven4")) }

// Every bad input gets a one-line error naming the file and the place, and
// saying what to do; the exit status is non-zero, and an existing output
// file is left as it was.
func TestBadInput(t *testing.T) {
	const keep = "an output from before that must survive"
	loops := filepath.Join(fixtureDir, "edge", "loops.bin")

	t.Run("truncated trace", func(t *testing.T) {
		dir := t.TempDir()
		f := filepath.Join(dir, "cut")
		b := mustRead(t, loops)
		writeFile(t, f, b[:len(b)/2])
		out := filepath.Join(dir, "out.u16")
		writeFile(t, out, []byte(keep))
		fails(t, []string{f + ": byte ", "corrupt ParLOT trace", "recapture it or restore it"}, "decode", "--raw", f, "-o", out)
		if string(mustRead(t, out)) != keep {
			t.Error("the existing output was written over")
		}
		assertNoTemps(t, dir)

		run := badRun(t)
		tr := filepath.Join(run, "Hdbg.17.node01.3216.0")
		b = mustRead(t, tr)
		writeFile(t, tr, b[:len(b)-3])
		for _, c := range []string{"info", "stats", "decode"} {
			fails(t, []string{tr + ": byte ", "corrupt ParLOT trace", "the file is truncated"}, c, run)
		}
	})

	t.Run("corrupt group", func(t *testing.T) {
		f := filepath.Join(t.TempDir(), "bad")
		// A bitmap announcing 8 non-zero bytes with only 2 behind it.
		writeFile(t, f, []byte{0xff, 1, 2, 4})
		fails(t, []string{f + ": byte 0: corrupt ParLOT trace: group needs 9 bytes but only 3 remain"}, "decode", "--raw", f)
	})

	t.Run("bad trailer", func(t *testing.T) {
		f := filepath.Join(t.TempDir(), "trailer")
		b := bytes.Clone(mustRead(t, filepath.Join(fixtureDir, "edge", "n5.bin")))
		b[len(b)-1] = 7
		writeFile(t, f, b)
		fails(t, []string{f + ": byte 5: corrupt ParLOT trace: trailer byte is 7, want 1 to 4"}, "decode", "--raw", f)
		writeFile(t, f, []byte{3})
		fails(t, []string{f + ": byte 0: corrupt ParLOT trace: trailer byte is 3 but the file holds no groups"}, "decode", "--raw", f)
	})

	t.Run("ID missing from .info", func(t *testing.T) {
		run := badRun(t)
		info := filepath.Join(run, "Hdbg.17.node01.3213.info")
		b := mustRead(t, info)
		writeFile(t, info, b[:bytes.LastIndex(b[:len(b)-1], []byte("\n"))+1]) // drop MPI_Finalize (ID 9)
		want := []string{filepath.Join(run, "Hdbg.17.node01.3213.0") + ": byte ", "calls function ID 9, but " + info + " defines only IDs 1 to 8", "put the .info written by the same process next to the trace"}
		for _, c := range [][]string{{"info", run}, {"stats", run}, {"decode", run}, {"decode", run, "-t", "1.0", "-f", "u16"}} {
			fails(t, want, c...)
		}
	})

	t.Run("malformed .info", func(t *testing.T) {
		run := badRun(t)
		info := filepath.Join(run, "Hdbg.17.node01.3218.info")
		writeFile(t, info, []byte("+\n/bin/app\nmain\n+\n+\n"))
		fails(t, []string{info + ": line 5: malformed ParLOT function table", `"+" where the image path of the section begun on line 4 belongs`, "restore it from the original run"}, "info", run)
		writeFile(t, info, []byte("main\n"))
		fails(t, []string{info + ": line 1: malformed ParLOT function table: function name \"main\" before any \"+\""}, "stats", run)
		writeFile(t, info, []byte("+\n/bin/app\n"+strings.Repeat("f\n", 65535)))
		fails(t, []string{info + ": line 65537: ", "beyond the format's limit of 65534 IDs"}, "decode", run)
	})

	t.Run("malformed run.json", func(t *testing.T) {
		run := badRun(t)
		writeFile(t, filepath.Join(run, "run.json"), []byte(`{"schema": 1, "ranks": [`))
		fails(t, []string{filepath.Join(run, "run.json") + ": byte ", "malformed run manifest", "fix or remove the file"}, "info", run)
	})

	t.Run("no traces", func(t *testing.T) {
		dir := t.TempDir()
		fails(t, []string{dir + ": no traces found", "give the directory a capture or uftrace record wrote"}, "info", dir)
		writeFile(t, filepath.Join(dir, "README"), []byte("not a trace"))
		fails(t, []string{dir + ": no traces found"}, "stats", dir)
		fails(t, []string{"nonexistent: no such run directory"}, "decode", filepath.Join(dir, "nonexistent"))
		fails(t, []string{": is a file, not a run directory", "decode --raw"}, "info", loops)
	})

	t.Run("unreadable files", func(t *testing.T) {
		// Root reads through chmod, so make reads fail for real: a directory
		// where a trace belongs, a dangling link, a FIFO (which must not hang).
		run := badRun(t)
		tr := filepath.Join(run, "Hdbg.17.node01.3208.0")
		os.Remove(tr)
		if err := os.Mkdir(tr, 0o755); err != nil {
			t.Fatal(err)
		}
		fails(t, []string{tr + ": cannot read: is a directory, not a file", "remove or rename it"}, "info", run)
		fails(t, []string{tr + ": cannot read: is a directory"}, "decode", "--raw", tr)

		os.Remove(tr)
		if err := os.Symlink(filepath.Join(run, "gone"), tr); err != nil {
			t.Fatal(err)
		}
		fails(t, []string{tr + ": cannot read: the file does not exist (a dangling symbolic link"}, "stats", run)

		os.Remove(tr)
		if err := syscall.Mkfifo(tr, 0o644); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			fails(t, []string{tr + ": cannot read: not a regular file"}, "decode", "--raw", tr)
			fails(t, []string{tr + ": cannot read: not a regular file"}, "info", run)
			fails(t, []string{tr + ": cannot read: not a regular file"}, "convert", "--from", "u16", tr, "-o", filepath.Join(t.TempDir(), "x"))
		}()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatal("reading a FIFO hung")
		}

		os.Remove(tr)
		writeFile(t, tr, mustRead(t, filepath.Join(fixtureDir, "oddeven4", "Hdbg.17.node01.3208.0")))
		info := filepath.Join(run, "Hdbg.17.node01.3216.info")
		os.Remove(info)
		os.Mkdir(info, 0o755)
		fails(t, []string{info + ": cannot read: is a directory"}, "info", run)
	})

	t.Run("trace without its table", func(t *testing.T) {
		run := badRun(t)
		os.Remove(filepath.Join(run, "Hdbg.17.node01.3216.info"))
		fails(t, []string{filepath.Join(run, "Hdbg.17.node01.3216.0") + ": trace file without its function table Hdbg.17.node01.3216.info", "copy the .info file"}, "info", run)
	})

	t.Run("more events than --max-events", func(t *testing.T) {
		dir := t.TempDir()
		out := filepath.Join(dir, "out.u16")
		writeFile(t, out, []byte(keep))
		// saturate is 25 bytes that decode to 300,000 events.
		sat := filepath.Join(fixtureDir, "edge", "saturate.bin")
		fails(t, []string{sat + ": byte ", "holds more than 100000 events (--max-events); raise --max-events if the trace is genuine"},
			"decode", "--raw", sat, "--max-events", "100000", "-o", out)
		if string(mustRead(t, out)) != keep {
			t.Error("the existing output was written over")
		}
		assertNoTemps(t, dir)
		run := filepath.Join(fixtureDir, "oddeven4")
		for _, c := range []string{"info", "stats", "decode"} {
			fails(t, []string{"Hdbg.17.node01.3208.0: byte ", "holds more than 20 events (--max-events)"}, c, run, "--max-events", "20")
		}
	})

	t.Run("bad u16 input to convert", func(t *testing.T) {
		dir := t.TempDir()
		in := filepath.Join(dir, "odd.u16")
		writeFile(t, in, []byte{1, 0, 2, 0, 3})
		out := filepath.Join(dir, "out")
		writeFile(t, out, []byte(keep))
		fails(t, []string{in + ": byte 4: the file has an odd number of bytes", "truncated or not a u16 trace"}, "convert", "--from", "u16", in, "-o", out)
		if string(mustRead(t, out)) != keep {
			t.Error("the existing output was written over")
		}
		even := filepath.Join(dir, "even.u16")
		writeFile(t, even, []byte{1, 0, 0, 0})
		fails(t, []string{even + ": is the input; write the output to another file"}, "convert", "--from", "u16", even, "-o", even)
		if !bytes.Equal(mustRead(t, even), []byte{1, 0, 0, 0}) {
			t.Error("the input was modified")
		}
		fails(t, []string{`--from "otf2": this difftrace converts from u16`}, "convert", "--from", "otf2", in, "-o", out)
		fails(t, []string{"convert needs an output file: -o OUT"}, "convert", "--from", "u16", in)
		assertNoTemps(t, dir)
	})

	t.Run("bad flags", func(t *testing.T) {
		run := filepath.Join(fixtureDir, "oddeven4")
		fails(t, []string{`--format "xml": want tree, flat, json or u16`}, "decode", run, "-f", "xml")
		fails(t, []string{`--by "rank": want thread, process or program`}, "stats", run, "--by", "rank")
		fails(t, []string{"no trace 9.0 in this run"}, "decode", run, "-t", "9.0")
		fails(t, []string{"--format u16 works on one trace, and " + run + " holds 4; choose one with --trace P.T"}, "decode", run, "-f", "u16")
		fails(t, []string{"event 99 is past the end of trace 0.0, which has 28 events (0 to 27)"}, "decode", run, "-t", "0.0", "--stack-at", "99")
		fails(t, []string{"--stack-at -3: events count from 0"}, "decode", run, "-t", "0.0", "--stack-at", "-3")
		fails(t, []string{"only --format u16 applies"}, "decode", "--raw", filepath.Join(fixtureDir, "edge", "n1.bin"), "-f", "tree")
	})
}

// Runs of two different programs are refused with what to do; --force
// compares them anyway, with a note.
func TestRankRefusesUnrelatedRuns(t *testing.T) {
	normal, faulty := absRun(t, "oddeven-normal"), absRun(t, "ilcs-normal")
	fails(t, []string{"different programs", "oddeven", "ilcs", "--force"}, "rank", normal, faulty, "--no-session")
	fails(t, []string{"different programs"}, "diffnlr", "0.0", "--normal", normal, "--faulty", faulty)
	if out := ok(t, "rank", normal, faulty, "--no-session", "--force", "--filters", "mpi"); !strings.Contains(out, "programs with different names") {
		t.Errorf("rank --force does not note the programs' names:\n%s", out)
	}
}

// An empty function table, or a trace whose bytes were damaged, is said to
// be damaged, not merely mismatched.
func TestDamageIsNamed(t *testing.T) {
	dir := copyDir(t, exampleRun("oddeven4-normal"))
	if err := os.WriteFile(filepath.Join(dir, "trace.1.info"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	fails(t, []string{"trace.1.info defines no function at all", "empty or damaged"}, "info", dir)

	dir = copyDir(t, exampleRun("oddeven4-normal"))
	p := filepath.Join(dir, "trace.2.0")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[5] ^= 0xff
	b[9] ^= 0x55
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	fails(t, []string{"trace.2.0: byte", "damaged"}, "info", dir)
}

// An output named inside an input run directory (over its run.json, or a
// trace) is refused before anything is read or written: the run stays as
// it was.
func TestOutputInsideInputRun(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	if err := os.CopyFS(run, os.DirFS(absRun(t, "oddeven-normal"))); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(run, "run.json")
	before := mustRead(t, manifest)
	fails(t, []string{manifest + ": is inside the input " + run + "; write the output outside it"}, "nlr", run, "-o", manifest)
	fails(t, []string{"is inside the input"}, "rank", run, absRun(t, "oddeven-swapbug"), "-o", filepath.Join(run, "sub", "..", "ranking.txt"), "--no-session")
	if !bytes.Equal(mustRead(t, manifest), before) {
		t.Error("run.json was written over")
	}
}
