package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/internal/param"
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

// writeFiles writes doc to the -o files (report.WriteFiles).
func writeFiles(cmd *cobra.Command, doc report.Document, paths []string, formats []report.Format, inputs []string) error {
	err := report.WriteFiles(cmd.ErrOrStderr(), doc, paths, formats, inputs)
	return param.Flags(err, map[string]string{"output": "-o"})
}

// emit writes what build returns to the output path (report.Emit).
func emit(cmd *cobra.Command, path string, format report.Format, inputs []string, build func() (report.Document, error)) error {
	return report.Emit(path, cmd.OutOrStdout(), format, inputs, build)
}

// writeOut writes doc in format to standard output.
func writeOut(cmd *cobra.Command, doc report.Document, format report.Format) error {
	return emit(cmd, "", format, nil, func() (report.Document, error) { return doc, nil })
}
