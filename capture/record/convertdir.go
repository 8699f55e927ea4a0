package record

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/difftrace/difftrace/rundir"
	"github.com/difftrace/difftrace/uftrace"
)

// ConvertDirsOptions configure the conversion of existing uftrace
// recordings into a run directory.
type ConvertDirsOptions struct {
	Out       string // the run directory to write
	Prefix    string // trace file prefix (default rundir.DefaultPrefix, "trace")
	FirstRank int    // rank of the first process
	// Ranks, if set, gives the rank of each directory's traced program
	// instead; the processes it forked are left out, as when decode reads
	// a directory of per-rank recordings.
	Ranks       []int
	Force       bool // replace another run in Out
	ToolVersion string
}

// ConvertUftraceDirs turns uftrace data directories into one run
// directory: every traced process becomes a rank, in the order the
// directories are given and, within one, in order of appearance (or each
// directory's program becomes rank Ranks[i]). What
// uftrace's info file knows (host, start, duration, exit status) goes into
// run.json.
func ConvertUftraceDirs(dirs []string, opt ConvertDirsOptions) (*rundir.Manifest, error) {
	if len(dirs) == 0 {
		return nil, fmt.Errorf("convert: no uftrace data directory given (name the directories uftrace record -d wrote)")
	}
	if opt.Prefix == "" {
		opt.Prefix = rundir.DefaultPrefix
	}
	var datas []*uftrace.Data
	var abs []string
	for _, d := range dirs {
		data, err := uftrace.Open(d)
		if err != nil {
			return nil, err
		}
		datas = append(datas, data)
		a, _ := filepath.Abs(d)
		abs = append(abs, a)
	}
	first := datas[0]
	images := "main"
	if first.AllImages() {
		images = "all"
	}
	tmpl := rundir.Manifest{
		Schema: rundir.ManifestSchema, Tool: "difftrace", ToolVersion: opt.ToolVersion, Format: "parlot-17",
		Backend: "convert", Images: images, Prefix: opt.Prefix, Command: first.Command(),
		Launch: "convert:" + strings.Join(abs, ","),
	}
	rank := opt.FirstRank
	claimed := false
	if opt.Ranks != nil && len(opt.Ranks) != len(dirs) {
		return nil, fmt.Errorf("convert: %d ranks for %d directories", len(opt.Ranks), len(dirs))
	}
	for i, data := range datas {
		pids := data.Processes()
		if opt.Ranks != nil {
			rank = opt.Ranks[i]
			pids = pids[:min(1, len(pids))]
		}
		for _, pid := range pids {
			r := rankEntry(data, rank, pid)
			if !claimed {
				if err := claimRunDir(opt.Out, tmpl, r, opt.Force); err != nil {
					return nil, err
				}
				claimed = true
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
			rank++
		}
	}
	if claimed {
		if err := assemble(opt.Out); err != nil {
			return nil, err
		}
	}
	return readManifest(opt.Out)
}

// UftraceRecordings returns the uftrace data directories to convert for
// the paths given, and their ranks. One path that holds a recording per
// rank (uftrace.<rank>) stands for those recordings; byName reports that
// their names do not end in distinct numbers, so that their ranks follow
// the names' sorted order. With numbered, the ranks are the numbers that
// end the directories' names, when they are distinct; otherwise ranks is
// nil and the processes are numbered in the order given.
func UftraceRecordings(paths []string, numbered bool) (dirs []string, ranks []int, byName bool, err error) {
	dirs = paths
	if len(paths) == 1 {
		subs, rs, ok, err := uftrace.RankDirs(paths[0])
		if err != nil {
			return nil, nil, false, err
		}
		if len(subs) > 0 {
			dirs, byName = subs, !ok
			if numbered {
				ranks = rs
			}
		}
	}
	if ranks == nil && numbered && len(dirs) > 1 {
		if rs, ok := uftrace.DirRanks(dirs); ok {
			ranks = rs
		}
	}
	return dirs, ranks, byName, nil
}

// rankEntry describes process pid of a recording as the run.json entry of
// the given rank: what the recording says of its host, start and end, and
// how it ended. Threads are left empty.
func rankEntry(data *uftrace.Data, rank, pid int) rundir.Rank {
	p := data.Process(pid)
	r := rundir.Rank{Rank: rank, Host: p.Host, PID: pid, Threads: []rundir.Thread{}, Start: p.Start, End: p.End}
	if p.Ended {
		r.SetEnd(p.Signal, p.ExitStatus)
	}
	return r
}
