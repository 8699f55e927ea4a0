package decode_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/parlot"
	"github.com/difftrace/difftrace/trace"
	"github.com/difftrace/difftrace/uftrace"
	"github.com/difftrace/difftrace/uftrace/uftracetest"
)

// copyRun copies the four-rank odd/even run into a fresh directory.
func copyRun(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "testdata", "runs", "oddeven4-normal"))); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The cause of an error survives from the damaged file up to decode's
// entry points: errors.Is sees the operating system's error, errors.As the
// codec's positional one, and the message names the file and where in it.
func TestErrorsSurvive(t *testing.T) {
	summarize := func(dir string) error {
		run, err := decode.Open(dir, trace.NewTable(), decode.Options{})
		if err != nil {
			return err
		}
		_, err = run.Summarize(run.Traces(), false)
		return err
	}
	t.Run("trace file gone after Open", func(t *testing.T) {
		dir := copyRun(t)
		run, err := decode.Open(dir, trace.NewTable(), decode.Options{})
		if err != nil {
			t.Fatal(err)
		}
		gone := filepath.Join(dir, "trace.2.0")
		if err := os.Remove(gone); err != nil {
			t.Fatal(err)
		}
		_, err = run.Summarize(run.Traces(), false)
		if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(fmt.Sprint(err), gone) {
			t.Errorf("error %v: want fs.ErrNotExist naming %s", err, gone)
		}
	})
	t.Run("trace cut short", func(t *testing.T) {
		dir := copyRun(t)
		p := filepath.Join(dir, "trace.1.0")
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b[:len(b)-3], 0o644); err != nil {
			t.Fatal(err)
		}
		err = summarize(dir)
		var ce *parlot.CorruptError
		if !errors.As(err, &ce) || ce.File != p || !strings.HasPrefix(err.Error(), fmt.Sprintf("%s: byte %d: corrupt ParLOT trace", p, ce.Offset)) {
			t.Errorf("error %v: want a *parlot.CorruptError at a byte of %s", err, p)
		}
	})
	t.Run("function table damaged", func(t *testing.T) {
		dir := copyRun(t)
		p := filepath.Join(dir, "trace.3.info")
		if err := os.WriteFile(p, []byte("+\n/bin/oddeven\nmain\n\nMPI_Send\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		err := summarize(dir)
		var ie *parlot.InfoError
		if !errors.As(err, &ie) || ie.File != p || ie.Line == 0 || !strings.HasPrefix(err.Error(), fmt.Sprintf("%s: line %d:", p, ie.Line)) {
			t.Errorf("error %v: want a *parlot.InfoError at a line of %s", err, p)
		}
	})
	t.Run("uftrace record damaged", func(t *testing.T) {
		dir := t.TempDir()
		uftracetest.Write(t, dir)
		p := filepath.Join(dir, fmt.Sprint(uftracetest.PID)+".dat")
		recs := append(uftracetest.Record(1, uftrace.Entry, false, 0, uftracetest.Base+0x1135), make([]byte, 16)...)
		if err := os.WriteFile(p, recs, 0o644); err != nil {
			t.Fatal(err)
		}
		err := summarize(dir)
		var ue *uftrace.Error
		if !errors.As(err, &ue) || ue.File != p || ue.Offset != 16 || !strings.HasPrefix(err.Error(), p+": byte 16: bad record magic") {
			t.Errorf("error %v: want a *uftrace.Error at byte 16 of %s", err, p)
		}
	})
	t.Run("uftrace info missing", func(t *testing.T) {
		dir := t.TempDir()
		uftracetest.Write(t, dir)
		if err := os.Remove(filepath.Join(dir, "info")); err != nil {
			t.Fatal(err)
		}
		_, err := uftrace.Open(dir)
		var ue *uftrace.Error
		if !errors.As(err, &ue) || !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), dir+": no info file") {
			t.Errorf("error %v: want a *uftrace.Error that is fs.ErrNotExist", err)
		}
	})
	t.Run("too many events", func(t *testing.T) {
		dir := copyRun(t)
		run, err := decode.Open(dir, trace.NewTable(), decode.Options{MaxEvents: 5})
		if err != nil {
			t.Fatal(err)
		}
		_, err = run.Summarize(run.Traces(), false)
		var le *parlot.LimitError
		if !errors.As(err, &le) || le.Max != 5 {
			t.Fatalf("error %v: want a *parlot.LimitError of 5", err)
		}
		// A command line names its flag.
		le.Param = "--max-events"
		if !strings.Contains(err.Error(), "more than 5 events (--max-events); raise --max-events if") {
			t.Errorf("error %v", err)
		}
	})
}
