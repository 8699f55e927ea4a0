package report

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/difftrace/difftrace/draw"
)

// Format is an output format of Write.
type Format string

// The formats Write writes.
const (
	Text Format = "text"
	JSON Format = "json"
	CSV  Format = "csv"
	HTML Format = "html"
)

// Options says how to write a document. One Options serves every
// document; a field a document does not use is ignored.
type Options struct {
	// Format is the output format; empty means the document's own default
	// (HTML for the page, Text for the others).
	Format Format
	// Color marks changes with terminal colours in text (the caller says
	// whether the output is a terminal).
	Color bool
}

// A Document is something Write writes: the page's Report, and the result
// of each command as plain values.
type Document interface {
	// defaultFormat is the format an empty Options.Format means.
	defaultFormat() Format
}

// The generators: a document that can be written in a format implements
// the format's method.
type (
	texter interface {
		writeText(w io.Writer, o Options) error
	}
	csver interface {
		writeCSV(w io.Writer, o Options) error
	}
	htmler interface {
		writeHTML(w io.Writer, o Options) error
	}
	// jsoner is for documents whose JSON is not the plain encoding of
	// their values.
	jsoner interface {
		writeJSON(w io.Writer, o Options) error
	}
)

// Write writes d to w in the format o names.
func Write(w io.Writer, d Document, o Options) error {
	f := o.Format
	if f == "" {
		f = d.defaultFormat()
	}
	var ok bool
	var err error
	switch f {
	case Text:
		var g texter
		if g, ok = d.(texter); ok {
			err = g.writeText(w, o)
		}
	case CSV:
		var g csver
		if g, ok = d.(csver); ok {
			err = g.writeCSV(w, o)
		}
	case HTML:
		var g htmler
		if g, ok = d.(htmler); ok {
			err = g.writeHTML(w, o)
		}
	case SVG, PNG, DOT:
		var g picturer
		if g, ok = d.(picturer); ok && slices.Contains(g.pictures(), f) {
			err = g.writePicture(w, draw.Format(f))
		} else {
			ok = false
		}
	case JSON:
		ok = true
		if g, custom := d.(jsoner); custom {
			err = g.writeJSON(w, o)
		} else {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			err = enc.Encode(d)
		}
	}
	if !ok {
		return fmt.Errorf("report: %s: no %s form (want one of %v)", docName(d), f, formats(d))
	}
	return err
}

// formats lists the formats d can be written in.
func formats(d Document) []Format {
	var out []Format
	if _, ok := d.(texter); ok {
		out = append(out, Text)
	}
	out = append(out, JSON)
	if _, ok := d.(csver); ok {
		out = append(out, CSV)
	}
	if _, ok := d.(htmler); ok {
		out = append(out, HTML)
	}
	if g, ok := d.(picturer); ok {
		out = append(out, g.pictures()...)
	}
	return out
}

// docName names a document's kind in errors.
func docName(d Document) string {
	if n, ok := d.(interface{ name() string }); ok {
		return n.name()
	}
	return fmt.Sprintf("%T", d)
}

// Count writes n and a noun, in the plural unless n is 1: "1 call",
// "3 calls", "2 matches".
func Count(n uint64, word string) string {
	s := strconv.FormatUint(n, 10) + " " + word
	switch {
	case n == 1:
	case strings.HasSuffix(word, "s"):
		s += "es"
	default:
		s += "s"
	}
	return s
}
