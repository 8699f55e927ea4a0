// Package draw lays out and draws Graphviz graphs (DOT source) for
// difftrace's pictures, the diffNLR (seeds/002 §3.2.7.1) and the concept
// lattice (Fig. 3.3), with go-graphviz: Graphviz compiled to WebAssembly, so
// nothing needs installing.
//
// go-graphviz compiles its WebAssembly module when its package is
// initialised, in every program that links it, whether the program draws
// or not: about 0.8 s and 40 MB the first time on a machine, tens of
// milliseconds afterwards (wazero caches the code in $TMPDIR/go-graphviz).
// The difftrace command must not pay that for every command, least of all
// in "mpirun -np 1000 difftrace capture", so it does not link go-graphviz:
// Render hands the DOT source to a helper program, difftrace-draw
// (cmd/difftrace-draw), installed beside difftrace, that draws it and exits.
// A program that imports draw/graphviz (the helper itself, tests, benchmarks)
// draws in its own process instead.
package draw

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/difftrace/difftrace/draw/cache"
	"github.com/difftrace/difftrace/internal/interrupt"
	"github.com/difftrace/difftrace/trace"
)

// Format is what Render produces.
type Format string

const (
	SVG Format = "svg"
	PNG Format = "png"
	DOT Format = "dot" // the Graphviz source itself: written as is, never rendered
)

// Valid reports whether f is a format Render draws (SVG or PNG).
func (f Format) Valid() bool { return f == SVG || f == PNG }

// FormatOf returns the picture format named by a file name's extension:
// .svg, .png, or .dot (also .gv).
func FormatOf(path string) (Format, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".svg":
		return SVG, nil
	case ".png":
		return PNG, nil
	case ".dot", ".gv":
		return DOT, nil
	}
	return "", fmt.Errorf("%s: unknown picture format %q; name it *.svg, *.png or *.dot", path, filepath.Ext(path))
}

// MaxPixels bounds both sides of a PNG picture: a larger one is scaled down
// to fit. Callers size their graphs (dpi, size) to stay within it.
const MaxPixels = 16000

// Engine draws DOT source in format f.
type Engine func(ctx context.Context, dot []byte, f Format) ([]byte, error)

var local struct {
	sync.Mutex
	engine Engine
}

// Register makes Render draw in this process with e; draw/graphviz
// registers itself when imported.
func Register(e Engine) {
	local.Lock()
	local.engine = e
	local.Unlock()
}

// HelperName is the helper program's name; HelperEnv, when set, is the path
// of the helper to run.
const (
	HelperName = "difftrace-draw"
	HelperEnv  = "DIFFTRACE_DRAW"
)

// Render lays out dot with Graphviz's dot and returns the picture in format
// f: in this process when an engine is registered, else by the helper
// program.
func Render(ctx context.Context, dot []byte, f Format) ([]byte, error) {
	if !f.Valid() {
		return nil, fmt.Errorf("draw: unknown format %q (want svg or png)", f)
	}
	local.Lock()
	e := local.engine
	local.Unlock()
	if e != nil {
		return e(ctx, dot, f)
	}
	return renderHelper(ctx, dot, f)
}

// renderHelper draws dot in format f, which Render has checked, with the
// helper program (see Helper). When the helper finds its cache of compiled
// Graphviz code damaged, the cache is cleared and the picture drawn once
// more.
func renderHelper(ctx context.Context, dot []byte, f Format) ([]byte, error) {
	path, err := Helper()
	if err != nil {
		return nil, err
	}
	for try := 0; ; try++ {
		pic, stderr, err := runHelper(ctx, path, dot, f)
		if err == nil {
			warn(stderr)
			return pic, nil
		}
		msg := helperError(stderr, err)
		if try == 0 && strings.Contains(msg, "compilationcache") && cache.Clear() == nil {
			continue // a damaged cache: compile afresh
		}
		return nil, fmt.Errorf("%s (%s): %s", HelperName, path, msg)
	}
}

// runHelper runs the helper once.
func runHelper(ctx context.Context, path string, dot []byte, f Format) (pic []byte, stderr string, err error) {
	cmd := exec.CommandContext(ctx, path, string(f))
	cmd.Stdin = bytes.NewReader(dot)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	done, err := interrupt.Start(cmd)
	if err != nil {
		return nil, "", err
	}
	err = cmd.Wait()
	done()
	if err != nil {
		return nil, errb.String(), err
	}
	if out.Len() == 0 {
		return nil, errb.String(), fmt.Errorf("it drew an empty %s picture", strings.ToUpper(string(f)))
	}
	return out.Bytes(), errb.String(), nil
}

// warnings is where the helper's warnings go, and those already passed on.
var warnings = struct {
	sync.Mutex
	w    io.Writer
	seen map[string]bool
}{w: os.Stderr, seen: map[string]bool{}}

// SetWarnings sends what the helper says on its standard error while it
// draws a picture (that it draws without its cache, and why, say) to w,
// os.Stderr until it is called; nil discards it. Each line is passed on
// once however many pictures are drawn, beginning with the helper's name.
func SetWarnings(w io.Writer) {
	warnings.Lock()
	warnings.w = w
	warnings.Unlock()
}

// warn passes on the helper's standard error from a picture it drew.
func warn(stderr string) {
	warnings.Lock()
	defer warnings.Unlock()
	for _, line := range strings.Split(stderr, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || warnings.seen[line] {
			continue
		}
		warnings.seen[line] = true
		if warnings.w == nil {
			continue
		}
		if !strings.HasPrefix(line, HelperName+": ") {
			line = HelperName + ": " + line
		}
		fmt.Fprintln(warnings.w, trace.Printable(line))
	}
}

// helperError says in one line why the helper failed: its own error, or
// the text of the panic or fatal error that ended it (not the last line of
// a stack trace), with what to try when memory ran out.
func helperError(stderr string, err error) string {
	var msg string
	for _, line := range strings.Split(stderr, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "panic: "), strings.HasPrefix(line, "fatal error: "):
			if msg == "" {
				msg = line
			}
		case strings.HasPrefix(line, HelperName+": ") && !strings.HasPrefix(line, HelperName+": note: "):
			msg = strings.TrimPrefix(line, HelperName+": ")
		}
	}
	if msg == "" {
		msg = strings.TrimSpace(stderr)
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = strings.TrimSpace(msg[i+1:])
		}
	}
	if msg == "" {
		msg = err.Error()
	}
	if outOfMemory(msg) {
		msg += " (it ran out of memory: Graphviz needs about 100 MB of memory and 1 GB of address space; raise ulimit -v, or draw the .dot file elsewhere)"
	}
	return msg
}

// outOfMemory reports whether an error text says memory ran out.
func outOfMemory(msg string) bool {
	for _, s := range []string{"out of memory", "cannot allocate memory", "failed to create new OS thread", "failed to reserve"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// Helper finds the helper program: $DIFFTRACE_DRAW, else difftrace-draw in
// the directory of the running program, else on PATH.
func Helper() (string, error) {
	if p := os.Getenv(HelperEnv); p != "" {
		if st, err := os.Stat(p); err != nil || st.IsDir() {
			return "", fmt.Errorf("%s=%s: no such program; point it at the %s program or unset it", HelperEnv, p, HelperName)
		}
		return p, nil
	}
	name := HelperName
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if exe, err := os.Executable(); err == nil {
		if exe, err = filepath.EvalSymlinks(exe); err == nil {
			p := filepath.Join(filepath.Dir(exe), name)
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				return p, nil
			}
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("drawing SVG or PNG needs %s, the Graphviz helper that comes with difftrace, next to this program or on PATH: run make build, or go install github.com/difftrace/difftrace/cmd/...@latest (.dot files need nothing)", HelperName)
}
