// Command ratio compares ParLOT's compression with general-purpose
// compressors on the same traces, the comparison of the ParLOT paper (seeds
// 001, section 5) and of Devale's thesis appendix (seeds 003).
//
// Each argument is a ParLOT trace file or a directory of them (a run: files
// <prefix>.<process>.<thread>, or *.bin). Every trace is decoded to its raw
// sequence of little-endian uint16 values and that sequence is compressed
// separately - ParLOT also compresses each thread separately - by the real
// gzip -9, xz -9 and zstd -19. The output is a Markdown table with one row per
// argument: total raw bytes, total compressed bytes and the ratio raw/compressed
// for ParLOT and each compressor.
//
//	go run ./cmd/ratio testdata/parlot/oddeven4 testdata/runs/*
package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/difftrace/difftrace/parlot"
	"github.com/difftrace/difftrace/rundir"
)

// compressors are the programs compared with ParLOT, each reading stdin and
// writing the compressed stream to stdout.
var compressors = []struct {
	Name string
	Args []string
}{
	{"gzip -9", []string{"gzip", "-9", "-c", "-n"}},
	{"xz -9", []string{"xz", "-9", "-c"}},
	{"zstd -19", []string{"zstd", "-19", "-c", "-q"}},
}

// Row is the comparison for one argument: sizes summed over its traces.
type Row struct {
	Input  string
	Traces int
	Events uint64
	Raw    int64   // 2 bytes per event
	ParLOT int64   // the trace files as they are
	Other  []int64 // per compressor, in the order of compressors
}

func main() {
	if len(os.Args) < 2 || strings.HasPrefix(os.Args[1], "-") {
		fmt.Fprintln(os.Stderr, "usage: ratio TRACE-OR-RUN-DIR...\n"+
			"compares ParLOT trace sizes with gzip -9, xz -9 and zstd -19 on the decoded raw values")
		os.Exit(2)
	}
	var rows []Row
	for _, arg := range os.Args[1:] {
		r, err := Measure(arg)
		if err != nil {
			fmt.Fprintln(os.Stderr, "ratio:", err)
			os.Exit(1)
		}
		rows = append(rows, r)
	}
	if err := WriteTable(os.Stdout, rows); err != nil {
		fmt.Fprintln(os.Stderr, "ratio:", err)
		os.Exit(1)
	}
}

// TraceFiles lists the trace files an argument stands for: the file itself,
// or the trace files directly inside a directory, sorted.
func TraceFiles(arg string) ([]string, error) {
	st, err := os.Stat(arg)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{arg}, nil
	}
	ents, err := os.ReadDir(arg)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range ents {
		if e.Type().IsRegular() && (isTrace(e.Name()) || strings.HasSuffix(e.Name(), ".bin")) {
			files = append(files, filepath.Join(arg, e.Name()))
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no ParLOT trace files (<prefix>.<process>.<thread> or *.bin) in this directory", arg)
	}
	slices.Sort(files)
	return files, nil
}

// Measure decodes every trace of arg and compresses its raw values with each
// compressor.
func Measure(arg string) (Row, error) {
	files, err := TraceFiles(arg)
	if err != nil {
		return Row{}, err
	}
	row := Row{Input: arg, Traces: len(files), Other: make([]int64, len(compressors))}
	tmp, err := os.CreateTemp("", "ratio-*.u16")
	if err != nil {
		return Row{}, err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	for _, f := range files {
		n, size, err := decodeTo(f, tmp)
		if err != nil {
			return Row{}, err
		}
		row.Events += n
		row.Raw += 2 * int64(n)
		row.ParLOT += size
		for i, c := range compressors {
			k, err := compressedSize(c.Args, tmp)
			if err != nil {
				return Row{}, fmt.Errorf("%s on the values of %s: %w", c.Name, f, err)
			}
			row.Other[i] += k
		}
	}
	return row, nil
}

// decodeTo decodes the trace file path into raw (truncated first) and
// returns the number of values and the file's size.
func decodeTo(path string, raw *os.File) (uint64, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	if err := raw.Truncate(0); err != nil {
		return 0, 0, err
	}
	if _, err := raw.Seek(0, io.SeekStart); err != nil {
		return 0, 0, err
	}
	w := bufio.NewWriterSize(raw, 1<<20)
	r := parlot.NewReader(bufio.NewReaderSize(f, 1<<20), path, 0)
	if err := parlot.WriteU16(w, r); err != nil {
		return 0, 0, err
	}
	if err := w.Flush(); err != nil {
		return 0, 0, err
	}
	return r.Events(), st.Size(), nil
}

// compressedSize runs a compressor on the contents of raw and counts the
// bytes it writes.
func compressedSize(args []string, raw *os.File) (int64, error) {
	if _, err := raw.Seek(0, io.SeekStart); err != nil {
		return 0, err
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin = raw
	var n counter
	cmd.Stdout = &n
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return 0, fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
		}
		return 0, fmt.Errorf("%w (install it: apt-get install %s)", err, args[0])
	}
	return int64(n), nil
}

type counter int64

func (c *counter) Write(p []byte) (int, error) {
	*c += counter(len(p))
	return len(p), nil
}

// WriteTable prints the rows as a Markdown table, sizes in bytes with the
// ratio raw/compressed in parentheses, followed by the compressors' versions.
func WriteTable(w io.Writer, rows []Row) error {
	var b strings.Builder
	b.WriteString("| input | traces | events | raw bytes | ParLOT |")
	for _, c := range compressors {
		b.WriteString(" " + c.Name + " |")
	}
	b.WriteString("\n|---|--:|--:|--:|--:|")
	for range compressors {
		b.WriteString("--:|")
	}
	b.WriteString("\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %s |", r.Input, r.Traces, r.Events, r.Raw, cell(r.Raw, r.ParLOT))
		for _, k := range r.Other {
			fmt.Fprintf(&b, " %s |", cell(r.Raw, k))
		}
		b.WriteString("\n")
	}
	b.WriteString("\nCompressors: ")
	for i, c := range compressors {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(version(c.Args[0]))
	}
	b.WriteString(".\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// cell formats a compressed size and its ratio.
func cell(raw, size int64) string {
	if size == 0 {
		return "0"
	}
	return fmt.Sprintf("%d (%.1f×)", size, float64(raw)/float64(size))
}

// version is the first line of a program's --version output.
func version(prog string) string {
	out, err := exec.Command(prog, "--version").CombinedOutput()
	if err != nil {
		return prog + " (version unknown)"
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return strings.Trim(line, "* ")
}

// isTrace reports whether name is a ParLOT trace file's:
// <prefix>.<process>.<thread>.
func isTrace(name string) bool {
	_, _, ok := rundir.SplitTrace(name)
	return ok
}
