package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"gonum.org/v1/gonum/mat"

	"github.com/difftrace/difftrace/draw"
	"github.com/difftrace/difftrace/fca"
	"github.com/difftrace/difftrace/rank"
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
		Long: `jsm computes the pairwise Jaccard similarity of the traces' attribute sets,
read off the concept lattice (the DiffTrace dissertation, §3.2.5, Fig. 3.4): 1 for traces with
the same attributes, 0 for traces with none in common. With two runs it
shows JSM_normal, JSM_faulty and JSM_D = |JSM_faulty − JSM_normal| side by
side (§3.2.6): the rows of JSM_D that light up belong to the traces the bug
changed. Both runs use the same trace IDs (the union of the runs'); a trace
missing from one run counts there as a trace with no attributes.

With -o the extension picks the output: .png or .svg (heatmaps sharing one
colour scale) or .csv (the matrices, one row per trace, preceded by the
matrix name with two runs); repeat -o for several. Without -o the matrices
are printed as text.`,
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
			panels := jsmPanels(sim)
			if len(f.outs) == 0 {
				out, _ := createOutput("", cmd.OutOrStdout())
				fmt.Fprintf(out, "filter %s, K = %d, attributes %s, %s level\n", flt.Name(), f.k, mode, level)
				for _, p := range panels {
					out.WriteString("\n" + p.Title + "\n")
					writeMatrixText(out, p)
				}
				return out.Commit()
			}
			return writeOutputs(cmd.ErrOrStderr(), f.outs, args, func(i int, out *output) error {
				return writeJSM(out, f.outs[i], exts[i], panels)
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

// writeJSM writes the panels to out, the file path, in the format its
// extension ext (lower case) names: heatmaps for .png and .svg, else CSV.
func writeJSM(out *output, path, ext string, panels []fca.Panel) error {
	switch ext {
	case ".png", ".svg":
		format := draw.PNG
		if ext == ".svg" {
			format = draw.SVG
		}
		if err := fca.WriteHeatmap(out, format, "", panels...); err != nil {
			return fmt.Errorf("drawing %s: %v", path, err)
		}
	default:
		if err := fca.WriteCSV(out, len(panels) > 1, panels...); err != nil {
			return fmt.Errorf("writing %s: %v", path, err)
		}
	}
	return nil
}

// jsmPanels returns JSM_normal, JSM_faulty and JSM_D with two runs, or the
// run's JSM with one.
func jsmPanels(sim *rank.Similarity) []fca.Panel {
	if len(sim.JSM) == 1 {
		return []fca.Panel{fca.JSMPanel("JSM", sim.JSM[0])}
	}
	n := len(sim.IDs)
	d := fca.JSMPanel("JSM_D = |JSM_faulty − JSM_normal|", sim.JSM[rank.Normal])
	d.M = mat.NewDense(n, n, sim.DiffMatrix())
	return []fca.Panel{
		fca.JSMPanel("JSM_normal", sim.JSM[rank.Normal]),
		fca.JSMPanel("JSM_faulty", sim.JSM[rank.Faulty]),
		d,
	}
}

// writeMatrixText prints a matrix with two decimals, aligned.
func writeMatrixText(out *output, p fca.Panel) {
	w := 4
	for _, l := range p.Labels {
		w = max(w, len(l))
	}
	fmt.Fprintf(out, "%*s", w, "")
	for _, l := range p.Labels {
		fmt.Fprintf(out, " %*s", w, l)
	}
	out.WriteByte('\n')
	for a, l := range p.Labels {
		fmt.Fprintf(out, "%*s", w, l)
		for b := range p.Labels {
			fmt.Fprintf(out, " %*.2f", w, p.M.At(a, b))
		}
		out.WriteByte('\n')
	}
}
