package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/internal/outfile"
	"github.com/difftrace/difftrace/report"
)

// checkFiles checks the -o files a document of doc's kind is to be
// written to, before any work (report.CheckFiles), and returns their
// formats.
func checkFiles(doc report.Document, paths []string) ([]report.Format, error) {
	formats, err := report.CheckFiles(doc, paths)
	if err != nil {
		return nil, fmt.Errorf("-o %w", err)
	}
	return formats, nil
}

// writeFiles writes doc to each -o file in its format (checkFiles), each
// whole or not at all; inputs are the files and runs it must not write
// over.
func writeFiles(cmd *cobra.Command, doc report.Document, paths []string, formats []report.Format, inputs []string) error {
	return outfile.WriteAll(cmd.ErrOrStderr(), paths, inputs, func(i int, out *outfile.File) error {
		if err := report.Write(out, doc, report.Options{Format: formats[i]}); err != nil {
			return fmt.Errorf("-o %s: %w", paths[i], err)
		}
		return nil
	})
}

// writeOut writes doc in format to path ("" or "-": standard output),
// whole or not at all; inputs are the runs it must not write over.
func writeOut(cmd *cobra.Command, path string, doc report.Document, format report.Format, inputs ...string) error {
	return emit(cmd, path, format, inputs, func() (report.Document, error) { return doc, nil })
}

// emit writes the document build returns in format to path ("" or "-":
// standard output), whole or not at all. The output is created before
// build runs, so that one that cannot be written fails before the work;
// inputs are the runs it must not write over. Errors writing name the
// output.
func emit(cmd *cobra.Command, path string, format report.Format, inputs []string, build func() (report.Document, error)) error {
	out, err := outfile.Create(path, cmd.OutOrStdout(), inputs...)
	if err != nil {
		return err
	}
	defer out.Abort()
	doc, err := build()
	if err != nil {
		return err
	}
	if err := report.Write(out.Named(), doc, report.Options{Format: format}); err != nil {
		return err
	}
	return out.Commit()
}
