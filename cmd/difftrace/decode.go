package main

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unsafe"

	"github.com/difftrace/difftrace/parlot"

	"github.com/spf13/cobra"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/trace"
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
	cmd := &cobra.Command{
		Use:   "decode RUN | decode --raw FILE",
		Short: "Print traces as call/return listings, or a call stack at one event",
		Long: `decode prints the full call/return listing of the traces of a run, with
image:function names, in one of these formats (the image is a file name:
the program's as this run recorded it, or a library's, e.g.
oddeven:main, libmpi.so.40:MPI_Send; directories are left out, as they are
when runs are compared):

  tree  one line per event, indented by call depth: "> f" enters f, "< f"
        leaves it; a trace that ends inside calls (a killed or hung thread)
        ends with the calls still open
  flat  tab-separated columns: trace, event, depth, call|return, image, function
  json  JSON Lines: one object per event
  u16   the raw ParLOT values of one trace (per-process function IDs at entries,
        0 at exits) as little-endian uint16: the decoded file, byte for byte

--stack-at N prints the call stack while event N (from 0) of one trace
happens: the open calls, outermost first.

--raw FILE decodes one ParLOT trace file without its run directory or .info
table; only --format u16 applies.`,
		Example: `  difftrace decode testdata/parlot/oddeven4
  difftrace decode testdata/parlot/oddeven4 --trace 2.0 --format flat
  difftrace decode faulty/ --trace 5.0 --stack-at 120345
  difftrace decode --raw testdata/parlot/edge/loops.bin --format u16 > loops.u16`,
		Args: func(cmd *cobra.Command, args []string) error {
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
		},
		RunE: func(cmd *cobra.Command, args []string) error {
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
				return decodeRaw(cmd, &f)
			}
			return decodeRun(cmd, &f, args[0])
		},
	}
	cmd.Flags().StringVarP(&f.traces, "trace", "t", "", "traces to print: P.T (a thread) or P (a process), comma-separated; all when empty")
	cmd.Flags().StringVarP(&f.format, "format", "f", "tree", "output format: tree, flat, json or u16")
	cmd.Flags().Int64Var(&f.stackAt, "stack-at", -1, "print the call stack at event `N` (from 0) of one trace instead of the listing")
	cmd.Flags().StringVar(&f.raw, "raw", "", "decode one ParLOT trace `FILE` without a run directory (with --format u16)")
	cmd.Flags().StringVarP(&f.out, "output", "o", "", "write to `FILE` (written whole or not at all) instead of standard output")
	f.register(cmd)
	cmd.ValidArgsFunction = completeRunDir
	cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"tree", "flat", "json", "u16"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// decodeRaw writes the values of one trace file as little-endian uint16.
func decodeRaw(cmd *cobra.Command, f *decodeFlags) error {
	in, _, err := decode.OpenInput(f.raw)
	if err != nil {
		return err
	}
	defer in.Close()
	return writeU16(cmd, f, in, f.raw, 0, "")
}

// littleEndian reports whether this machine stores a uint16 as the
// little-endian bytes --format u16 writes.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// writeU16 decodes src to the output as raw values. info and funcs, when
// set, make the reader check IDs against the function table.
func writeU16(cmd *cobra.Command, f *decodeFlags, src io.Reader, name string, funcs int, info string) error {
	if f.out == "" && isTerminal(cmd.OutOrStdout()) {
		return fmt.Errorf("refusing to write binary values to a terminal; redirect standard output to a file or use -o FILE")
	}
	out, err := createOutput(f.out, cmd.OutOrStdout(), name)
	if err != nil {
		return err
	}
	defer out.Abort()
	r := parlot.NewReader(src, name, f.maxEvents)
	if info != "" {
		r.CheckIDs(funcs, info)
	}
	vals := make([]uint16, 256<<10)
	buf := make([]byte, 2*len(vals))
	for {
		n, err := r.Read(vals)
		b := buf[:2*n]
		if littleEndian {
			// The values are already laid out as the bytes to write.
			b = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(vals))), 2*n)
		} else {
			for i, v := range vals[:n] {
				binary.LittleEndian.PutUint16(buf[2*i:], v)
			}
		}
		if _, werr := out.Write(b); werr != nil {
			return fmt.Errorf("writing %s: %v", out.name(), werr)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	return out.Commit()
}

func decodeRun(cmd *cobra.Command, f *decodeFlags, dir string) error {
	switch f.format {
	case "tree", "flat", "json", "u16":
	default:
		return fmt.Errorf("--format %q: want tree, flat, json or u16", f.format)
	}
	run, err := f.open(cmd, dir)
	if err != nil {
		return err
	}
	ids, err := run.Select(f.traces)
	if err != nil {
		return err
	}
	one := func(what string) (trace.ID, error) {
		if len(ids) != 1 {
			return trace.ID{}, fmt.Errorf("%s works on one trace, and %s holds %d; choose one with --trace P.T", what, dir, len(ids))
		}
		return ids[0], nil
	}
	if f.stackAt >= 0 {
		id, err := one("--stack-at")
		if err != nil {
			return err
		}
		return printStack(cmd, f, run, id)
	}
	if f.format == "u16" {
		id, err := one("--format u16")
		if err != nil {
			return err
		}
		if run.Format == decode.FormatUftrace {
			return fmt.Errorf("--format u16 writes a ParLOT trace's raw values, and %s is a uftrace recording; convert it first (difftrace convert %s -o RUN) or choose --format flat", dir, dir)
		}
		t, _ := run.Trace(id)
		in, _, err := decode.OpenInput(t.Path)
		if err != nil {
			return err
		}
		defer in.Close()
		return writeU16(cmd, f, in, t.Path, t.Proc.Funcs, t.Proc.Info)
	}
	out, err := createOutput(f.out, cmd.OutOrStdout())
	if err != nil {
		return err
	}
	defer out.Abort()
	l := newLister(out, run, f.format)
	for _, id := range ids {
		t, _ := run.Trace(id)
		l.begin(id, t)
		if err := run.Walk(id, l.event); err != nil {
			return err
		}
		l.end()
		if l.err != nil {
			return fmt.Errorf("writing %s: %v", out.name(), l.err)
		}
	}
	return out.Commit()
}

// lister writes the call/return listing of traces in one format.
type lister struct {
	w      io.Writer
	tab    decode.Namer
	format string
	id     string
	open   []trace.Symbol // the calls open so far, for the end-of-trace note
	json   map[trace.Symbol]string
	names  map[trace.Symbol]string
	flat   map[trace.Symbol]string
	line   []byte
	err    error
	events uint64
}

func newLister(w io.Writer, tab decode.Namer, format string) *lister {
	return &lister{w: w, tab: tab, format: format, json: map[trace.Symbol]string{}, names: map[trace.Symbol]string{}, flat: map[trace.Symbol]string{}}
}

func (l *lister) begin(id trace.ID, t *decode.TraceFile) {
	l.id = id.String()
	l.open = l.open[:0]
	l.events = 0
	if l.format == "tree" {
		p := t.Proc
		who := fmt.Sprintf("process %d", p.Index)
		if p.PID != 0 {
			who += fmt.Sprintf(", pid %d", p.PID)
		}
		l.write(fmt.Appendf(nil, "== trace %s (%s): %s\n", l.id, who, trace.Printable(t.Path)))
	}
}

// name is "image:function" for listings, escaped (trace.Printable: names
// are anyone's to write); "?" for an exit with no open call.
func (l *lister) name(s trace.Symbol) string {
	if s == trace.Return {
		return "?"
	}
	if n, ok := l.names[s]; ok {
		return n
	}
	n := trace.Printable(l.tab.Name(s).Qualify(l.tab.Label(s)))
	l.names[s] = n
	return n
}

func (l *lister) event(e decode.Event) error {
	l.events++
	if e.Exit {
		if len(l.open) > 0 {
			l.open = l.open[:len(l.open)-1]
		}
	} else {
		l.open = append(l.open, e.Func)
	}
	b := l.line[:0]
	kind := "call"
	if e.Exit {
		kind = "return"
	}
	switch l.format {
	case "tree":
		b = appendPadded(b, e.Index, 8)
		b = append(b, ' ', ' ')
		for range e.Depth {
			b = append(b, ' ', ' ')
		}
		if e.Exit {
			b = append(b, "< "...)
		} else {
			b = append(b, "> "...)
		}
		b = append(b, l.name(e.Func)...)
	case "flat":
		n := trace.Name{}
		if e.Func != trace.Return {
			n = l.tab.Name(e.Func)
		}
		b = append(b, l.id...)
		b = append(b, '\t')
		b = strconv.AppendUint(b, e.Index, 10)
		b = append(b, '\t')
		b = strconv.AppendInt(b, int64(e.Depth), 10)
		b = append(b, '\t')
		b = append(b, kind...)
		b = append(b, '\t')
		b = append(b, trace.Printable(n.Image)...)
		b = append(b, '\t')
		if e.Func != trace.Return {
			b = append(b, l.flatName(e.Func)...)
		}
	case "json":
		b = append(b, `{"trace":"`...)
		b = append(b, l.id...)
		b = append(b, `","event":`...)
		b = strconv.AppendUint(b, e.Index, 10)
		b = append(b, `,"depth":`...)
		b = strconv.AppendInt(b, int64(e.Depth), 10)
		b = append(b, `,"kind":"`...)
		b = append(b, kind...)
		b = append(b, `",`...)
		b = append(b, l.jsonName(e.Func)...)
		b = append(b, '}')
	}
	b = append(b, '\n')
	l.line = b
	l.write(b)
	return l.err
}

// flatName is the function of s as the flat listing shows it, escaped.
func (l *lister) flatName(s trace.Symbol) string {
	if n, ok := l.flat[s]; ok {
		return n
	}
	n := trace.Printable(l.tab.Label(s))
	l.flat[s] = n
	return n
}

// appendPadded appends n right-aligned in width columns.
func appendPadded(b []byte, n uint64, width int) []byte {
	var tmp [20]byte
	d := strconv.AppendUint(tmp[:0], n, 10)
	for i := len(d); i < width; i++ {
		b = append(b, ' ')
	}
	return append(b, d...)
}

// jsonName returns the "image" and "func" members for s, encoded once.
func (l *lister) jsonName(s trace.Symbol) string {
	if j, ok := l.json[s]; ok {
		return j
	}
	var j string
	if s == trace.Return {
		j = `"image":null,"func":null`
	} else {
		n := l.tab.Name(s)
		img, _ := json.Marshal(n.Image)
		fn, _ := json.Marshal(n.Func)
		j = `"image":` + string(img) + `,"func":` + string(fn)
	}
	l.json[s] = j
	return j
}

func (l *lister) end() {
	if l.format != "tree" {
		return
	}
	if len(l.open) > 0 {
		names := make([]string, len(l.open))
		for i, s := range l.open {
			names[i] = l.name(s)
		}
		l.write(fmt.Appendf(nil, "          (trace ends inside %s: %s)\n", plural(uint64(len(l.open)), "open call"), strings.Join(names, " > ")))
	}
	l.write(fmt.Appendf(nil, "          (%s)\n\n", plural(l.events, "event")))
}

func (l *lister) write(b []byte) {
	if l.err == nil {
		_, l.err = l.w.Write(b)
	}
}

func printStack(cmd *cobra.Command, f *decodeFlags, run *decode.Run, id trace.ID) error {
	ev, frames, err := run.StackAt(id, uint64(f.stackAt))
	if err != nil {
		return err
	}
	out, err := createOutput(f.out, cmd.OutOrStdout())
	if err != nil {
		return err
	}
	defer out.Abort()
	name := func(s trace.Symbol) string {
		if s == trace.Return {
			return "?"
		}
		return trace.Printable(run.Name(s).Qualify(run.Label(s)))
	}
	kind := "call"
	if ev.Exit {
		kind = "return"
	}
	switch f.format {
	case "json":
		type frame struct {
			Image string `json:"image"`
			Func  string `json:"func"`
			Event uint64 `json:"event"`
		}
		doc := struct {
			Trace string  `json:"trace"`
			Event uint64  `json:"event"`
			Kind  string  `json:"kind"`
			Depth int     `json:"depth"`
			Stack []frame `json:"stack"`
		}{Trace: id.String(), Event: ev.Index, Kind: kind, Depth: ev.Depth, Stack: []frame{}}
		for _, fr := range frames {
			n := run.Name(fr.Func)
			doc.Stack = append(doc.Stack, frame{n.Image, n.Func, fr.Event})
		}
		b, _ := json.MarshalIndent(doc, "", "  ")
		out.Write(append(b, '\n'))
	case "tree", "flat":
		fmt.Fprintf(out, "trace %s, event %d: %s %s at depth %d\n", id, ev.Index, kind, name(ev.Func), ev.Depth)
		if len(frames) == 0 {
			fmt.Fprintln(out, "call stack: empty (an exit with no open call)")
		} else {
			fmt.Fprintln(out, "call stack, outermost first:")
		}
		w, nw := len(strconv.Itoa(len(frames))), 0
		for _, fr := range frames {
			nw = max(nw, len(name(fr.Func)))
		}
		for i, fr := range frames {
			fmt.Fprintf(out, "  %*d  %-*s  entered at event %d\n", w, i, nw, name(fr.Func), fr.Event)
		}
	default:
		return errors.New("--stack-at prints tree/flat text or json, not " + f.format)
	}
	return out.Commit()
}
