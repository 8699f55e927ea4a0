package testenv

import (
	"os/exec"
	"runtime"
	"testing"
)

func TestTool(t *testing.T) {
	// The shell is on every machine that runs these tests.
	want, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	if got := Tool(t, "sh", "no shell"); got != want {
		t.Errorf("Tool(sh) = %q, want %q", got, want)
	}
}

// TestToolMissing checks that a missing program stops the test: failed in
// CI, skipped elsewhere.
func TestToolMissing(t *testing.T) {
	for _, ci := range []string{"", "true"} {
		t.Setenv("CI", ci)
		r := &recorder{TB: t}
		done := make(chan struct{})
		go func() { // Fatalf and Skipf end the goroutine they run in
			defer close(done)
			Tools(r, "the test needs it", "sh", "difftrace-no-such-program")
			r.returned = true
		}()
		<-done
		if r.returned || r.failed != (ci != "") || r.skipped != (ci == "") {
			t.Errorf("CI=%q: returned %v, failed %v, skipped %v", ci, r.returned, r.failed, r.skipped)
		}
	}
}

// recorder is a testing.TB that records how it was stopped instead of
// stopping the real test.
type recorder struct {
	testing.TB
	returned, failed, skipped bool
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(string, ...any) {
	r.failed = true
	runtime.Goexit()
}

func (r *recorder) Skipf(string, ...any) {
	r.skipped = true
	runtime.Goexit()
}
