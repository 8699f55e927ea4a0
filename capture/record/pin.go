package record

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/difftrace/difftrace/parlot"

	"github.com/difftrace/difftrace/capture"
	"github.com/difftrace/difftrace/rundir"
)

// pinBackend records with Intel Pin and this project's ParLOT Pin tool
// (capture/pintool), which writes the ParLOT files itself, straight into the
// run directory, and flushes them when the program is killed: no snapshot
// is needed, since the tool records a call's entry when it happens.
type pinBackend struct {
	pin *capture.Pin
}

func (p *pinBackend) program(name string) (string, error) {
	path, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("program %s: %w", name, err)
	}
	return filepath.Abs(path)
}

func (p *pinBackend) snapshots() bool { return false }

// prepare has nothing to ready: the Pin tool writes the ParLOT files itself,
// and the work directory stays empty.
func (p *pinBackend) prepare(Options, int) bool { return true }

func (p *pinBackend) command(opt Options, prog string, rank int, work string) *exec.Cmd {
	run := capture.PinRun{Dir: opt.Dir, Prefix: opt.Prefix, Rank: rank, AllImages: opt.AllImages}
	return p.pin.Command(context.Background(), run, prog, opt.Command[1:]...)
}

// finish describes the trace files the tool wrote for the rank: events are
// counted by decoding each file.
func (p *pinBackend) finish(opt Options, rank, pid int, prog string, snap *Snapshot, work string) (*finished, error) {
	run := capture.PinRun{Dir: opt.Dir, Prefix: opt.Prefix, Rank: rank}
	if _, err := os.Stat(run.InfoPath()); err != nil {
		return nil, fmt.Errorf("the Pin tool wrote no function table for rank %d (%w); see Pin's messages above", rank, err)
	}
	var threads []rundir.Thread
	for t := 0; ; t++ {
		path := run.TracePath(t)
		f, err := os.Open(path)
		if err != nil {
			break
		}
		n, size, err := countEvents(f, path)
		f.Close()
		if err != nil {
			return nil, err
		}
		threads = append(threads, rundir.Thread{Thread: t, Events: n, Bytes: size})
	}
	var notes []string
	if len(threads) == 0 {
		notes = append(notes, "the Pin tool wrote no trace file ("+strings.TrimSuffix(filepath.Base(run.TracePath(0)), ".0")+".*)")
	}
	return &finished{threads: threads, notes: notes}, nil
}

// countEvents decodes the trace file f (at path) to count its events, and
// returns them with the file's size.
func countEvents(f *os.File, path string) (events uint64, size int64, err error) {
	st, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	r := parlot.NewReader(f, path, 0)
	buf := make([]uint16, 64<<10)
	for {
		if _, err := r.Read(buf); err == io.EOF {
			return r.Events(), st.Size(), nil
		} else if err != nil {
			return 0, 0, err
		}
	}
}
