package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/decode"
)

type convertFlags struct {
	from   string
	out    string
	export exportFlags
	// uftrace: the rank of the first process, and whether to replace
	// another run in the output directory.
	firstRank int
	force     bool
}

func newConvertCmd() *cobra.Command {
	var f convertFlags
	cmd := command("convert [--from u16|uftrace] IN... -o OUT | convert --to chrome|pprof RUN -o OUT", "Write ParLOT traces from other forms of a trace, or a run for Perfetto and pprof",
		cobra.MinimumNArgs(1), nil, func(cmd *cobra.Command, args []string) error {
			if f.export.to != "" {
				if f.from != "" {
					return fmt.Errorf("--from %s and --to %s: convert writes ParLOT traces from another form (--from) or a run in another form (--to); choose one", f.from, f.export.to)
				}
				return runExport(cmd, &f.export, args, f.out)
			}
			for _, fl := range []string{"filter", "trace", "diff", "split-size", "max-events", "signatures", "mixed-programs"} {
				if cmd.Flags().Changed(fl) {
					return fmt.Errorf("--%s applies with --to chrome or --to pprof", fl)
				}
			}
			if f.out == "" {
				return fmt.Errorf("convert needs an output file: -o OUT (a run directory for uftrace recordings)")
			}
			from := f.from
			if st, err := os.Stat(args[0]); from == "" && err == nil && st.IsDir() {
				from = "uftrace"
			}
			switch from {
			case "u16":
				if len(args) != 1 {
					return fmt.Errorf("--from u16 converts one file at a time; got %d", len(args))
				}
				return decode.ConvertU16File(args[0], f.out)
			case "uftrace":
				return convertUftrace(cmd, args, &f)
			case "":
				return fmt.Errorf("convert needs the input's form: --from u16 or --from uftrace")
			}
			return fmt.Errorf("--from %q: this difftrace converts from u16 (raw little-endian uint16 values) or uftrace (uftrace data directories)", f.from)
		})
	cmd.Flags().StringVar(&f.from, "from", "", "the input's form: u16 (raw little-endian uint16 values) or uftrace (data directories)")
	cmd.Flags().StringVarP(&f.out, "output", "o", "", "the ParLOT trace `FILE` (u16) or run directory (uftrace) to write; with --to, the JSON (.json, .json.gz) or profile (.pb.gz) file")
	cmd.Flags().IntVar(&f.firstRank, "rank", 0, "uftrace: number the processes from this rank, in the order given")
	cmd.Flags().BoolVar(&f.force, "force", false, "uftrace: replace another run already in the output directory")
	f.export.register(cmd)
	cmd.RegisterFlagCompletionFunc("from", cobra.FixedCompletions([]string{"u16", "uftrace"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}
