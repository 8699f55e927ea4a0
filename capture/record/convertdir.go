package record

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/difftrace/difftrace/decode"
)

// ConvertDirsOptions configure the conversion of existing uftrace
// recordings into a run directory.
type ConvertDirsOptions struct {
	Out         string // the run directory to write
	Prefix      string // trace file prefix (default "trace")
	FirstRank   int    // rank of the first process
	Force       bool   // replace another run in Out
	ToolVersion string
}

// ConvertUftraceDirs turns uftrace data directories into one run
// directory: every traced process becomes a rank, in the order the
// directories are given and, within one, in order of appearance. What
// uftrace's info file knows (host, start, duration, exit status) goes into
// run.json.
func ConvertUftraceDirs(dirs []string, opt ConvertDirsOptions) (*decode.Manifest, error) {
	if opt.Prefix == "" {
		opt.Prefix = "trace"
	}
	var datas []*decode.UftraceData
	var abs []string
	for _, d := range dirs {
		data, err := decode.OpenUftrace(d)
		if err != nil {
			return nil, err
		}
		datas = append(datas, data)
		a, _ := filepath.Abs(d)
		abs = append(abs, a)
	}
	first := datas[0]
	images := "main"
	if cl := " " + first.Info["cmdline"] + " "; strings.Contains(cl, " --nest-libcall ") || strings.Contains(cl, " -l ") {
		images = "all"
	}
	tmpl := decode.Manifest{
		Schema: decode.ManifestSchema, Tool: "difftrace", ToolVersion: opt.ToolVersion, Format: "parlot-17",
		Backend: "convert", Images: images, Prefix: opt.Prefix, Command: uftraceCommand(first),
		Launch: "convert:" + strings.Join(abs, ","),
	}
	rank := opt.FirstRank
	var ranks []decode.Rank
	for i, data := range datas {
		for _, pid := range data.Processes() {
			r := uftraceRankEntry(data, rank, pid)
			if len(ranks) == 0 {
				if err := claimRunDir(opt.Out, tmpl, r, opt.Force); err != nil {
					return nil, err
				}
			}
			res, err := ConvertUftrace(data, ConvertOptions{Dir: opt.Out, Prefix: opt.Prefix, Rank: rank, PID: pid})
			if err != nil {
				return nil, fmt.Errorf("%s: %w", dirs[i], err)
			}
			r.Threads = res.Threads
			r.Note = strings.Join(append([]string{"converted from the uftrace recording " + abs[i]}, res.Notes...), "; ")
			if err := updateRank(opt.Out, tmpl, r); err != nil {
				return nil, err
			}
			ranks = append(ranks, r)
			rank++
		}
	}
	return readManifest(opt.Out)
}

// uftraceCommand recovers the traced program and its arguments from the
// uftrace command line saved in the recording.
func uftraceCommand(data *decode.UftraceData) []string {
	exe := data.Info["exename"]
	fs := strings.Fields(data.Info["cmdline"])
	for i, f := range fs {
		if i > 0 && (f == exe || filepath.Base(f) == filepath.Base(exe) && !strings.HasPrefix(f, "-")) {
			return append([]string{exe}, fs[i+1:]...)
		}
	}
	if exe != "" {
		return []string{exe}
	}
	return fs
}

// uftraceRankEntry fills a manifest entry from a recording's info.
func uftraceRankEntry(data *decode.UftraceData, rank, pid int) decode.Rank {
	r := decode.Rank{Rank: rank, Host: data.Info["osinfo:hostname"], PID: pid, Threads: []decode.Thread{}}
	if t, err := time.ParseInLocation(time.ANSIC, strings.TrimSpace(data.Info["record_date"]), time.Local); err == nil {
		r.Start = t
		if sec, err := strconv.ParseFloat(strings.Fields(data.Info["elapsed_time"] + " x")[0], 64); err == nil {
			r.End = t.Add(time.Duration(sec * float64(time.Second)))
		}
	}
	// uftrace saves the program's wait status (when it could wait for it).
	if st, err := strconv.Atoi(strings.TrimSpace(data.Info["exit_status"])); err == nil && st >= 0 && pid == data.Processes()[0] {
		if sig := st & 0x7f; sig != 0 {
			r.Signal = signalName(syscall.Signal(sig))
		} else {
			r.Exited = true
			r.ExitStatus = st >> 8
		}
	}
	return r
}
