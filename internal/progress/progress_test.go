package progress

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"testing"
)

// Off a terminal, New shows nothing, and the nil Bars it returns takes
// every call.
func TestNotATerminal(t *testing.T) {
	var buf bytes.Buffer
	p := New(&buf)
	if p != nil {
		t.Fatalf("New on a buffer = %v, want nil", p)
	}
	p.Begin("decoding traces", 10)
	p.Step()
	p.End()
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if New(f) != nil {
		t.Error("New on a regular file gave bars")
	}
}

// On a writer taken for a terminal, a stage shows its description and
// count, steps from many goroutines add up, and End clears the bar.
func TestBars(t *testing.T) {
	var buf bytes.Buffer
	p := &Bars{w: &buf}
	p.Begin("one step", 1) // too short for a bar
	p.Step()
	if buf.Len() != 0 {
		t.Errorf("a one-step stage wrote %q", buf.String())
	}
	p.Begin("writing traces", 64)
	var wg sync.WaitGroup
	for range 64 {
		wg.Add(1)
		go func() { defer wg.Done(); p.Step() }()
	}
	wg.Wait()
	if n := p.bar.State().CurrentNum; n != 64 {
		t.Errorf("the bar counted %d steps, want 64", n)
	}
	p.End()
	out := buf.String()
	if !strings.Contains(out, "writing traces") || !strings.Contains(out, "/64, ") || !strings.Contains(out, " traces/s)") {
		t.Errorf("the bar wrote %q; want the stage, its count and its rate in traces a second", out)
	}
	if !strings.HasSuffix(out, strings.Repeat(" ", 20)+"\r") {
		t.Errorf("the bar was not cleared at the end: %q", out)
	}
}
