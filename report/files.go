package report

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/difftrace/difftrace/draw"
	"github.com/difftrace/difftrace/draw/diffgraph"
	"github.com/difftrace/difftrace/draw/hangtree"
	"github.com/difftrace/difftrace/draw/hasse"
	"github.com/difftrace/difftrace/draw/heatmap"
)

// The picture formats: documents that draw themselves (a diffNLR, the
// classes of a hang, the similarity matrices, a lattice) are written in
// the ones they list.
const (
	SVG Format = "svg"
	PNG Format = "png"
	DOT Format = "dot"
)

// picturer is a document that draws itself.
type picturer interface {
	// pictures are the picture formats it is drawn in.
	pictures() []Format
	writePicture(w io.Writer, f draw.Format) error
}

// fileFormats maps the extension of an output file's name to a format.
var fileFormats = map[string]Format{".json": JSON, ".csv": CSV, ".html": HTML, ".svg": SVG, ".png": PNG, ".dot": DOT, ".gv": DOT}

// FileFormat returns the format the name of an output file asks d to be
// written in, by its extension (.json, .csv, .html, .svg, .png, .dot or
// .gv, in any case), or an error naming the ones d has.
func FileFormat(d Document, path string) (Format, error) {
	ext := filepath.Ext(path)
	f, ok := fileFormats[strings.ToLower(ext)]
	if !ok || !slices.Contains(formats(d), f) {
		return "", fmt.Errorf("%s: unknown format %q; %s", path, ext, nameFiles(d))
	}
	return f, nil
}

// nameFiles says how to name an output file of d: "name the file *.svg,
// *.png or *.dot for a picture, *.json for the data".
func nameFiles(d Document) string {
	var pics, data []string
	for _, f := range formats(d) {
		switch f {
		case Text:
		case SVG, PNG, DOT:
			pics = append(pics, "*."+string(f))
		default:
			data = append(data, "*."+string(f))
		}
	}
	s := "name the file "
	if len(pics) > 0 {
		s += orList(pics) + " for a picture, "
	}
	return s + orList(data) + " for the data"
}

// orList joins words as "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// CheckFiles checks, before any work, the output files d is to be written
// to: the format each name asks for (FileFormat), no directory in the way,
// a directory that exists, and the helper that draws SVG and PNG. It
// returns the formats, one per path.
func CheckFiles(d Document, paths []string) ([]Format, error) {
	out := make([]Format, len(paths))
	for i, p := range paths {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return nil, fmt.Errorf("%s: is a directory; give a file name for the output", p)
		}
		f, err := FileFormat(d, p)
		if err != nil {
			return nil, err
		}
		if st, err := os.Stat(filepath.Dir(p)); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("%s: the directory %s does not exist; create it first", p, filepath.Dir(p))
		}
		if f == SVG || f == PNG {
			if _, err := draw.Helper(); err != nil {
				return nil, err
			}
		}
		out[i] = f
	}
	return out, nil
}

// The documents' pictures.

func (*DiffNLR) pictures() []Format { return []Format{SVG, PNG, DOT} }

func (d *DiffNLR) writePicture(w io.Writer, f draw.Format) error {
	return trimDiffNLR(diffgraph.Render(w, d.Text.Picture, f))
}

func (*PeerDiffNLR) pictures() []Format { return []Format{SVG, PNG, DOT} }

func (d *PeerDiffNLR) writePicture(w io.Writer, f draw.Format) error {
	return trimDiffNLR(diffgraph.Render(w, d.text.Picture, f))
}

// trimDiffNLR drops the package's name from the errors of a diffNLR's
// drawing: the output file names what failed.
func trimDiffNLR(err error) error {
	if err == nil {
		return nil
	}
	return errors.New(strings.TrimPrefix(err.Error(), "diffnlr: "))
}

func (*HangAnalysis) pictures() []Format { return []Format{SVG, PNG, DOT} }

func (h *HangAnalysis) writePicture(w io.Writer, f draw.Format) error {
	pic, err := hangtree.Draw(h.Analysis, f)
	if err != nil {
		return err
	}
	_, err = w.Write(pic)
	return err
}

func (*JSM) pictures() []Format { return []Format{PNG, SVG} }

func (d *JSM) writePicture(w io.Writer, f draw.Format) error {
	return heatmap.Write(w, f, "", d.Panels...)
}

func (*Concepts) pictures() []Format { return []Format{SVG, PNG, DOT} }

func (d *Concepts) writePicture(w io.Writer, f draw.Format) error {
	if d.Lattice == nil {
		return errors.New("the lattice is not held: only its concepts are")
	}
	return hasse.Write(w, f, d.Context, d.Lattice)
}
