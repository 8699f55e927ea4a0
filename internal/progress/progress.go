// Package progress shows long work as progress bars on a terminal
// (github.com/schollz/progressbar/v3): decoding, folding, sweeping,
// exporting. It shows nothing unless its writer is a terminal, so that
// scripts and logs stay clean.
package progress

import (
	"io"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/difftrace/difftrace/internal/outfile"
)

// Bars shows one stage at a time as a bar. It is what rank.Progress asks
// for; Step may be called from any goroutine. A nil *Bars shows nothing,
// so a caller can use one whether or not New gave it a terminal.
type Bars struct {
	w   io.Writer
	mu  sync.Mutex
	bar *progressbar.ProgressBar
}

// New returns bars on w, or nil when w is not a terminal.
func New(w io.Writer) *Bars {
	if !outfile.IsTerminal(w) {
		return nil
	}
	return &Bars{w: w}
}

// Begin ends the stage shown and starts one of total steps, described as
// what, whose last word names the steps: "decoding traces" counts traces,
// and the bar shows how many are done and how many a second. A stage of
// fewer than two steps shows no bar.
func (p *Bars) Begin(what string, total int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.finish()
	if total < 2 {
		return
	}
	p.bar = progressbar.NewOptions(total,
		progressbar.OptionSetWriter(p.w),
		progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString(what[strings.LastIndexByte(what, ' ')+1:]),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish())
}

// Step counts one step of the stage.
func (p *Bars) Step() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Add(1)
	}
}

// End ends the stage and clears its bar.
func (p *Bars) End() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.finish()
}

// finish ends the bar shown, if any; p.mu is held.
func (p *Bars) finish() {
	if p.bar != nil {
		p.bar.Finish()
	}
	p.bar = nil
}
