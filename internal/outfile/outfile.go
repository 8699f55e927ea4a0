// Package outfile is where a command writes its result: standard output,
// or a file written under a temporary name and renamed into place only
// when the command succeeds (internal/atomicfile), so that a failure never
// leaves a half-written file or clobbers an old one, and an output never
// lands on or inside one of the command's inputs.
package outfile

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/term"

	"github.com/difftrace/difftrace/internal/atomicfile"
	"github.com/difftrace/difftrace/internal/param"
	"github.com/difftrace/difftrace/trace"
)

// File is one output: standard output, or a file committed whole.
type File struct {
	*bufio.Writer
	f    *atomicfile.File // nil for standard output
	path string
}

// Create opens path for writing ("" or "-" is stdout). It refuses to write
// over any of the inputs, or inside one that is a directory.
func Create(path string, stdout io.Writer, inputs ...string) (*File, error) {
	if path == "" || path == "-" {
		return &File{Writer: bufio.NewWriterSize(stdout, 256<<10)}, nil
	}
	if st, err := os.Stat(path); err == nil {
		if st.IsDir() {
			return nil, fmt.Errorf("%s: is a directory; give a file name for the output", path)
		}
		for _, in := range inputs {
			if ist, err := os.Stat(in); err == nil && os.SameFile(st, ist) {
				return nil, fmt.Errorf("%s: is the input; write the output to another file (inputs are never modified)", path)
			}
		}
	}
	if in, ok := insideInput(path, inputs); ok {
		return nil, fmt.Errorf("%s: is inside the input %s; write the output outside it (inputs are never modified)", path, in)
	}
	f, err := atomicfile.Create(path)
	var refused *atomicfile.RefusedError
	if errors.As(err, &refused) {
		// It names the path, says what it is and what to do.
		if refused.Path == path {
			return nil, err
		}
		return nil, fmt.Errorf("%s: leads to %w", path, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: cannot create the output: %w (check the directory exists and is writable)", path, err)
	}
	return &File{Writer: bufio.NewWriterSize(f, 256<<10), f: f, path: path}, nil
}

// Commit flushes the output and, for a file, renames it into place.
func (o *File) Commit() error {
	if err := o.Flush(); err != nil {
		o.Abort()
		return fmt.Errorf("writing %s: %w", o.Name(), err)
	}
	if o.f == nil {
		return nil
	}
	err := o.f.Commit()
	o.f = nil
	if err != nil {
		return fmt.Errorf("writing %s: %w", o.path, err)
	}
	return nil
}

// Abort discards a file output; the temporary file is removed and nothing
// at the output path changes. It is a no-op after Commit.
func (o *File) Abort() {
	if o.f != nil {
		o.f.Abort()
		o.f = nil
	}
}

// Name is the output's name in messages: its path, or "standard output".
func (o *File) Name() string {
	if o.path == "" {
		return "standard output"
	}
	return o.path
}

// WriteAll writes each of the files paths in turn: write fills the file
// (i is its place in paths) through Create, so it appears whole or not at
// all, and each file written is reported on stderr.
func WriteAll(stderr io.Writer, paths, inputs []string, write func(i int, out *File) error) error {
	for i, path := range paths {
		out, err := Create(path, nil, inputs...)
		if err != nil {
			return err
		}
		if err := write(i, out); err != nil {
			out.Abort()
			return err
		}
		if err := out.Commit(); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "wrote %s\n", path)
	}
	return nil
}

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	return term.IsTerminal(int(f.Fd())) // /dev/null is a character device, not a terminal
}

// Color reports whether text written to w is coloured under mode:
// "always", "never", or "auto", when w is a terminal and NO_COLOR is not
// set (no-color.org). Another mode is a param.Error of "color".
func Color(mode string, w io.Writer) (bool, error) {
	switch mode {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto":
		return os.Getenv("NO_COLOR") == "" && IsTerminal(w), nil
	}
	return false, param.Errorf("color", strconv.Quote(mode), "want auto, always or never")
}

// insideInput reports whether path would be written inside one of the
// inputs that is a directory (a run, a summary): over its run.json, say.
func insideInput(path string, inputs []string) (string, bool) {
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return "", false
	}
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	for _, in := range inputs {
		st, err := os.Stat(in)
		if err != nil || !st.IsDir() {
			continue
		}
		abs, err := filepath.Abs(in)
		if err != nil {
			continue
		}
		if d, err := filepath.EvalSymlinks(abs); err == nil {
			abs = d
		}
		if rel, err := filepath.Rel(abs, dir); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return in, true
		}
	}
	return "", false
}

// Write writes one output whole through Create: write fills it, through
// gzip (its fastest level) when compress is set and the path ends in .gz.
// A file written is reported on stderr, its name escaped
// (trace.Printable); errors name the output.
func Write(path string, stdout, stderr io.Writer, inputs []string, compress bool, write func(io.Writer) error) error {
	out, err := Create(path, stdout, inputs...)
	if err != nil {
		return err
	}
	defer out.Abort()
	var w io.Writer = out
	var gz *gzip.Writer
	if compress && strings.HasSuffix(path, ".gz") {
		gz, _ = gzip.NewWriterLevel(out, gzip.BestSpeed)
		w = gz
	}
	if err := write(w); err != nil {
		return fmt.Errorf("%s: %w", out.Name(), err)
	}
	if gz != nil {
		if err := gz.Close(); err != nil {
			return fmt.Errorf("writing %s: %w", out.Name(), err)
		}
	}
	if err := out.Commit(); err != nil {
		return err
	}
	if path != "-" {
		fmt.Fprintf(stderr, "wrote %s\n", trace.Printable(path))
	}
	return nil
}

// Named returns a writer to the output whose errors name it ("writing
// out.u16: no space left on device"), for a writer that passes its own
// errors and the ones of what it reads alike.
func (o *File) Named() io.Writer { return named{o} }

// named names the output in the errors writing to it.
type named struct{ out *File }

func (o named) Write(b []byte) (int, error) {
	n, err := o.out.Write(b)
	if err != nil {
		err = fmt.Errorf("writing %s: %w", o.out.Name(), err)
	}
	return n, err
}
