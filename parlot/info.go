package parlot

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/difftrace/difftrace/internal/input"
	"github.com/difftrace/difftrace/trace"
)

// MaxFuncID is the largest function ID a ParLOT function table may define:
// IDs are 16-bit, 0 marks an exit, and the format keeps 65535 out of use.
const MaxFuncID = 65534

// maxInfoLine bounds one line of a function table (a demangled C++ name can
// be long, but not this long).
const maxInfoLine = 1 << 20

// FuncTable is one process's function table, read from its .info file: the
// image and name of every function ID its traces use. Names[id-1] is the
// function with ID id, with its image's path as the file gives it.
type FuncTable struct {
	File  string
	Names []trace.Name
	// Program is the image path of the first section, the traced program
	// (docs/parlot-format.md); "" for a table with no section.
	Program string
}

// InfoError reports a malformed function table: the file, the line, what was
// wrong.
type InfoError struct {
	File   string
	Line   int
	Reason string
}

func (e *InfoError) Error() string {
	return fmt.Sprintf("%s: line %d: malformed ParLOT function table: %s (the .info file is damaged or was not written by ParLOT or difftrace; restore it from the original run)",
		e.File, e.Line, e.Reason)
}

// ReadFuncTable reads the function table in the .info file at path.
func ReadFuncTable(path string) (*FuncTable, error) {
	f, _, err := input.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseFuncTable(f, path)
}

// ParseFuncTable reads a function table (docs/parlot-format.md): a line "+"
// starts an image section, the next line is the image path, each following
// line is one function; IDs count 1, 2, 3, … across sections. name is used in
// errors. Blank lines are allowed only at the end (anywhere else they would
// shift every ID after them).
func ParseFuncTable(src io.Reader, name string) (*FuncTable, error) {
	sc := bufio.NewScanner(src)
	sc.Buffer(make([]byte, 0, 64<<10), maxInfoLine)
	t := &FuncTable{File: name}
	var (
		line      int
		image     string
		inSection bool
		wantImage bool // the previous line was "+"
		plusLine  int  // line of the last "+"
		blank     int  // first of the blank lines seen since the last non-blank one
	)
	bad := func(format string, args ...any) error {
		return &InfoError{File: name, Line: line, Reason: fmt.Sprintf(format, args...)}
	}
	for sc.Scan() {
		line++
		b := bytes.TrimSuffix(sc.Bytes(), []byte{'\r'})
		if len(b) == 0 {
			if blank == 0 {
				blank = line
			}
			continue
		}
		if blank != 0 {
			line = blank
			return nil, bad("blank line inside the table (every line after a section's image path is one function ID)")
		}
		if bytes.IndexByte(b, 0) >= 0 {
			return nil, bad("the line holds a NUL byte: this is not a text function table")
		}
		switch {
		case wantImage:
			if string(b) == "+" {
				return nil, bad(`"+" where the image path of the section begun on line %d belongs`, plusLine)
			}
			image = string(b)
			if t.Program == "" {
				t.Program = image
			}
			wantImage = false
			inSection = true
		case string(b) == "+":
			wantImage = true
			plusLine = line
		case !inSection:
			return nil, bad(`function name %q before any "+" section header (a function table starts with a line "+", then the image path)`, clip(b))
		default:
			if len(t.Names) == MaxFuncID {
				return nil, bad("function %q would get ID %d, beyond the format's limit of %d IDs", clip(b), MaxFuncID+1, MaxFuncID)
			}
			t.Names = append(t.Names, trace.Name{Image: image, Func: string(b)})
		}
	}
	if err := sc.Err(); err != nil {
		line++
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, bad("line longer than %d bytes: this is not a function table", maxInfoLine)
		}
		return nil, fmt.Errorf("%s: line %d: %w", name, line, err)
	}
	if wantImage {
		line = plusLine
		return nil, bad(`the file ends after "+" without the image path (the file was cut short)`)
	}
	return t, nil
}

// clip shortens a line quoted in an error.
func clip(b []byte) string {
	if len(b) > 60 {
		return string(b[:57]) + "..."
	}
	return string(b)
}

// ImageSection is one image's section of a function table: the image and
// its functions, in ID order.
type ImageSection struct {
	Image string
	Names []trace.Name
}

// ImageSections groups distinct names, given in order of first appearance,
// into the sections of a function table, which is how both capture's
// conversion and a uftrace recording read directly number functions: the
// program's image first (present even without functions, unless program is
// ""), then the other images in order of first appearance, each image's
// functions in order of first appearance.
func ImageSections(names []trace.Name, program string) []ImageSection {
	var secs []ImageSection
	at := map[string]int{}
	if program != "" {
		secs = append(secs, ImageSection{Image: program})
		at[program] = 0
	}
	for _, n := range names {
		i, ok := at[n.Image]
		if !ok {
			i = len(secs)
			at[n.Image] = i
			secs = append(secs, ImageSection{Image: n.Image})
		}
		secs[i].Names = append(secs[i].Names, n)
	}
	return secs
}

// WriteFuncTable writes the function table of secs (docs/parlot-format.md),
// the form ParseFuncTable reads: per section a line "+", the image path,
// then one line per function, its symbol as the program's files spell it
// (trace.Name.Symbol); IDs count 1, 2, 3, … across sections. A name the
// format cannot hold — empty, "+", or with a line break or NUL in it — and
// more than MaxFuncID functions are refused before anything is written.
func WriteFuncTable(w io.Writer, secs []ImageSection) error {
	n := 0
	for _, sec := range secs {
		if err := tableLine(sec.Image, "image path"); err != nil {
			return err
		}
		for _, f := range sec.Names {
			if err := tableLine(f.Symbol(), "function name"); err != nil {
				return err
			}
		}
		n += len(sec.Names)
	}
	if n > MaxFuncID {
		return fmt.Errorf("the function table has %d functions; ParLOT IDs are 16-bit and hold at most %d", n, MaxFuncID)
	}
	bw := bufio.NewWriter(w)
	for _, sec := range secs {
		bw.WriteString("+\n" + sec.Image + "\n")
		for _, f := range sec.Names {
			bw.WriteString(f.Symbol() + "\n")
		}
	}
	return bw.Flush()
}

// tableLine checks that s can be one line of a function table.
func tableLine(s, what string) error {
	switch {
	case s == "":
		return fmt.Errorf("an empty %s cannot be written to a ParLOT function table (it would read as a blank line)", what)
	case s == "+":
		return fmt.Errorf(`the %s "+" cannot be written to a ParLOT function table (it would read as a section header)`, what)
	case strings.ContainsAny(s, "\n\r\x00"):
		return fmt.Errorf("the %s %q cannot be written to a ParLOT function table: it holds a line break or NUL", what, s)
	}
	return nil
}
