package main

import (
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// barProgress shows the analysis pipeline's long stages as progress bars on
// stderr. It shows nothing unless stderr is a terminal, so scripts and logs
// stay clean.
type barProgress struct {
	w   io.Writer
	mu  sync.Mutex
	bar *progressbar.ProgressBar
}

// newProgress returns a progress display on w, or nil when w is not a
// terminal (the pipeline then reports nothing).
func newProgress(w io.Writer) *barProgress {
	if !isTerminal(w) {
		return nil
	}
	return &barProgress{w: w}
}

func (p *barProgress) Begin(what string, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Finish()
	}
	p.bar = nil
	if total < 2 {
		return
	}
	p.bar = progressbar.NewOptions(total,
		progressbar.OptionSetWriter(p.w),
		progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish())
}

func (p *barProgress) Step() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Add(1)
	}
}

func (p *barProgress) End() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Finish()
	}
	p.bar = nil
}
