package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/internal/outfile"
	"github.com/difftrace/difftrace/report"
)

type decodeFlags struct {
	readFlags
	traces  string
	format  string
	stackAt int64
	raw     string
	out     string
}

func newDecodeCmd() *cobra.Command {
	var f decodeFlags
	cmd := command("decode RUN | decode --raw FILE", "Print traces as call/return listings, or a call stack at one event",
		func(cmd *cobra.Command, args []string) error {
			if f.raw != "" {
				if len(args) != 0 {
					return fmt.Errorf("give either a run directory or --raw FILE, not both")
				}
				return nil
			}
			if len(args) != 1 {
				return fmt.Errorf("decode needs a run directory (or --raw FILE for one trace file); see difftrace decode --help")
			}
			return nil
		}, completeRunDirs(1), func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("stack-at") && f.stackAt < 0 {
				return fmt.Errorf("--stack-at %d: events count from 0", f.stackAt)
			}
			if f.raw != "" {
				if !cmd.Flags().Changed("format") {
					f.format = "u16"
				}
				if f.format != "u16" || f.traces != "" || f.stackAt >= 0 {
					return fmt.Errorf("--raw decodes a file without its function table: only --format u16 applies (give the run directory for names, --trace and --stack-at)")
				}
				return writeU16(cmd, &f, f.raw, func(w io.Writer) error { return decode.WriteU16(w, f.raw, f.maxEvents) })
			}
			return decodeRun(cmd, &f, args[0])
		})
	cmd.Flags().StringVarP(&f.traces, "trace", "t", "", "traces to print: P.T (a thread) or P (a process), comma-separated; all when empty")
	cmd.Flags().StringVarP(&f.format, "format", "f", "tree", "output format: tree, flat, json or u16")
	cmd.Flags().Int64Var(&f.stackAt, "stack-at", -1, "print the call stack at event `N` (from 0) of one trace instead of the listing")
	cmd.Flags().StringVar(&f.raw, "raw", "", "decode one ParLOT trace `FILE` without a run directory (with --format u16)")
	cmd.Flags().StringVarP(&f.out, "output", "o", "", "write to `FILE` (written whole or not at all) instead of standard output")
	f.register(cmd)
	cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"tree", "flat", "json", "u16"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// writeU16 writes raw values to the output: write fills it.
func writeU16(cmd *cobra.Command, f *decodeFlags, name string, write func(io.Writer) error) error {
	if f.out == "" && outfile.IsTerminal(cmd.OutOrStdout()) {
		return fmt.Errorf("refusing to write binary values to a terminal; redirect standard output to a file or use -o FILE")
	}
	out, err := outfile.Create(f.out, cmd.OutOrStdout(), name)
	if err != nil {
		return err
	}
	defer out.Abort()
	if err := write(out.Named()); err != nil {
		return err
	}
	return out.Commit()
}

func decodeRun(cmd *cobra.Command, f *decodeFlags, dir string) error {
	format, ok := decodeFormats[f.format]
	if !ok && f.format != "u16" {
		return fmt.Errorf("--format %q: want tree, flat, json or u16", f.format)
	}
	run, err := f.open(cmd, dir, nil)
	if err != nil {
		return err
	}
	doc, id, err := report.Decoding{Traces: f.traces, Flat: f.format == "flat", StackAt: f.stackAt, U16: f.format == "u16"}.Document(run)
	switch {
	case err != nil:
		return err
	case doc == nil:
		t, _ := run.Trace(id)
		return writeU16(cmd, f, t.Path, func(w io.Writer) error { return run.WriteU16(w, id) })
	}
	return emit(cmd, f.out, format, []string{run.Dir}, func() (report.Document, error) { return doc, nil })
}

// decodeFormats are the report formats of --format (u16 is written apart).
var decodeFormats = map[string]report.Format{"tree": report.Text, "flat": report.Text, "json": report.JSON}
