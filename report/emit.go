package report

import (
	"io"

	"github.com/difftrace/difftrace/internal/outfile"
	"github.com/difftrace/difftrace/internal/param"
)

// Emit writes the document build returns in format to path ("" or "-":
// stdout), whole or not at all (outfile.Create). The output is created
// before build runs, so that one that cannot be written fails before the
// work; inputs are the runs it must not write over. Errors writing name
// the output.
func Emit(path string, stdout io.Writer, format Format, inputs []string, build func() (Document, error)) error {
	out, err := outfile.Create(path, stdout, inputs...)
	if err != nil {
		return err
	}
	defer out.Abort()
	d, err := build()
	if err != nil {
		return err
	}
	if err := Write(out.Named(), d, Options{Format: format}); err != nil {
		return err
	}
	return out.Commit()
}

// WriteFiles writes d to each file of paths in its format (formats, as
// CheckFiles returns them), each whole or not at all, saying on stderr
// which it wrote; inputs are the files and runs it must not write over.
// An error of the document's writing is a param.Error of the parameter
// "output" with the file's name as its value.
func WriteFiles(stderr io.Writer, d Document, paths []string, formats []Format, inputs []string) error {
	return outfile.WriteAll(stderr, paths, inputs, func(i int, out *outfile.File) error {
		if err := Write(out, d, Options{Format: formats[i]}); err != nil {
			return &param.Error{Name: "output", Value: paths[i], Err: err}
		}
		return nil
	})
}
