package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/draw"
	"github.com/difftrace/difftrace/draw/heatmap"
	"github.com/difftrace/difftrace/internal/outfile"
	"github.com/difftrace/difftrace/report"
)

type jsmFlags struct {
	analysisFlags
	outs []string
}

func newJSMCmd() *cobra.Command {
	var f jsmFlags
	cmd := &cobra.Command{
		Use:   "jsm RUN [RUN2] --filter SPEC --attrs MODE [-o jsm.png|.svg|.csv]...",
		Short: "Jaccard similarity matrices of the traces, and their difference between two runs",
		Long:  help("jsm"),
		Example: `  difftrace jsm testdata/runs/oddeven4-normal --filter mpi -o jsm.png
  difftrace jsm testdata/runs/oddeven-normal testdata/runs/oddeven-swapbug --filter mpi -o jsm.png
  difftrace jsm normal/ faulty/ --filter omp.crit+mem --attrs sing.log10 -o jsm.csv -o jsm.svg`,
		Args:              runArgs(1, 2),
		ValidArgsFunction: completeRunDirs,
		RunE: func(cmd *cobra.Command, args []string) error {
			flt, mode, level, err := f.parse()
			if err != nil {
				return err
			}
			exts := make([]string, len(f.outs))
			for i, o := range f.outs {
				switch exts[i] = strings.ToLower(filepath.Ext(o)); exts[i] {
				case ".png", ".svg", ".csv":
				default:
					return fmt.Errorf("-o %s: unknown format %q; use .png, .svg or .csv", o, filepath.Ext(o))
				}
			}
			sim, err := f.similarity(cmd, args, flt, mode, level)
			if err != nil {
				return err
			}
			doc := report.NewJSM(sim, flt.Name(), f.k, mode)
			if len(f.outs) == 0 {
				out, _ := outfile.Create("", cmd.OutOrStdout())
				if err := report.Write(out, doc, report.Options{}); err != nil {
					return err
				}
				return out.Commit()
			}
			return outfile.WriteAll(cmd.ErrOrStderr(), f.outs, args, func(i int, out *outfile.File) error {
				return writeJSM(out, f.outs[i], exts[i], doc)
			})
		},
	}
	f.register(cmd)
	f.registerPolling(cmd)
	f.registerForce(cmd)
	f.registerFilter(cmd, "mpi")
	f.registerK(cmd)
	f.registerAttrs(cmd)
	cmd.Flags().StringArrayVarP(&f.outs, "output", "o", nil, "write the matrices to this file: .png, .svg or .csv (repeatable)")
	return cmd
}

// writeJSM writes the matrices to out, the file path, in the format its
// extension ext (lower case) names: heatmaps for .png and .svg, else CSV.
func writeJSM(out *outfile.File, path, ext string, doc *report.JSM) error {
	switch ext {
	case ".png", ".svg":
		format := draw.PNG
		if ext == ".svg" {
			format = draw.SVG
		}
		if err := heatmap.Write(out, format, "", doc.Panels...); err != nil {
			return fmt.Errorf("drawing %s: %v", path, err)
		}
	default:
		if err := report.Write(out, doc, report.Options{Format: report.CSV}); err != nil {
			return fmt.Errorf("writing %s: %v", path, err)
		}
	}
	return nil
}
