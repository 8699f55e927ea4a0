package chrome

import (
	"bufio"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/difftrace/difftrace/decode"
	"github.com/difftrace/difftrace/trace"
)

// SplitSize is the size of trace-event JSON, in bytes before any
// compression, above which ByRank puts each rank in a file of its own:
// about what Perfetto UI and chrome://tracing can load into a browser
// tab, which holds the whole JSON text in memory whatever the file's
// compression. It is a variable so that a program or a test can set
// another limit.
var SplitSize int64 = 1 << 30

// PID returns the pid of rank p's process in a timeline: p + 1. Perfetto
// takes pid 0 for the kernel's idle task and handles it apart, so no
// timeline of difftrace's has one; the process's name gives the rank.
func PID(p int) int { return p + 1 }

// TID returns the tid of thread t in a timeline: t + 1, for Perfetto
// UI versions that merged tid 0 into tid 1. The thread's name gives t.
func TID(t int) int { return t + 1 }

// IDs says in AddRun's otherData how pids and tids relate to ranks and
// threads.
const IDs = "pid is the rank + 1 and tid the thread + 1 (Perfetto gives pid 0 and tid 0 special meanings); process_name and thread_name say the rank and the thread"

// ProcessName returns what the viewer calls process p of run: "rank P",
// or "process P" for the original ParLOT tool's output without a manifest
// (processes numbered by ascending pid, not by rank).
func ProcessName(run *decode.Run, p int) string {
	if run.Format == decode.FormatParLOT && run.Manifest == nil {
		return fmt.Sprintf("process %d", p)
	}
	return fmt.Sprintf("rank %d", p)
}

// ThreadName returns what the viewer calls thread t: "thread T".
func ThreadName(t int) string { return fmt.Sprintf("thread %d", t) }

// AddRun adds the traces ids of run to w, in order, each as the track of
// its thread in its process (PID and TID: the rank and the thread, plus
// one), named by ProcessName and ThreadName. Each trace is decoded as it
// is written.
func AddRun(w *Writer, run *decode.Run, ids []trace.ID) error {
	w.setMeta("ids", IDs)
	named := map[int]bool{}
	for _, id := range ids {
		if !named[id.Proc] {
			named[id.Proc] = true
			if err := w.Process(PID(id.Proc), ProcessName(run, id.Proc), id.Proc); err != nil {
				return err
			}
		}
		if err := addTrace(w, run, id, PID(id.Proc), 0); err != nil {
			return err
		}
		if w.opts.Progress != nil {
			w.opts.Progress()
		}
	}
	return nil
}

// addTrace writes trace id of run as the track of its thread in process
// pid, its events at offset + their index.
func addTrace(w *Writer, run *decode.Run, id trace.ID, pid int, offset uint64) error {
	if err := w.Thread(pid, TID(id.Thread), ThreadName(id.Thread)); err != nil {
		return err
	}
	t := w.Track(pid, TID(id.Thread), offset)
	if err := run.Stream(id, t.Write); err != nil {
		return fmt.Errorf("trace %s: %w", id, err)
	}
	return t.Close()
}

// counter counts the bytes written to it.
type counter struct{ n int64 }

func (c *counter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}

// Size returns, for each of the traces ids, the bytes of JSON AddRun
// writes for it under opts: its events and its thread's metadata, before
// compression. It encodes every trace, on all cores, and keeps nothing but
// the counts.
func Size(run *decode.Run, ids []trace.ID, opts Options) ([]int64, error) {
	sizes := make([]int64, len(ids))
	err := run.ForEach(ids, func(i int, id trace.ID) error {
		var c counter
		w := &Writer{bw: bufio.NewWriterSize(&c, 64<<10), opts: opts}
		if err := addTrace(w, run, id, PID(id.Proc), 0); err != nil {
			return err
		}
		if err := w.bw.Flush(); err != nil {
			return err
		}
		sizes[i] = c.n
		if opts.Progress != nil {
			opts.Progress()
		}
		return nil
	})
	return sizes, err
}

// ByRank groups the traces ids, whose JSON weighs sizes (Size), into the
// files to write: all in one when they weigh limit or less, or belong to
// one process; otherwise one group per process, in order. A single
// process heavier than limit stays one group: its threads' clocks belong
// together.
func ByRank(ids []trace.ID, sizes []int64, limit int64) [][]trace.ID {
	var total int64
	for _, s := range sizes {
		total += s
	}
	var groups [][]trace.ID
	at := map[int]int{} // process → its group
	for _, id := range ids {
		g, ok := at[id.Proc]
		if !ok {
			g = len(groups)
			at[id.Proc] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], id)
	}
	if total <= limit || len(groups) <= 1 {
		return [][]trace.ID{ids}
	}
	return groups
}

// RankFile returns the name of the file that holds rank's traces when the
// output path is split by rank: trace.json.gz gives trace.rank-3.json.gz,
// out.json out.rank-3.json, and a name without either extension gets
// .rank-3 at its end.
func RankFile(path string, rank int) string {
	dir, base := filepath.Split(path)
	stem, ext := base, ""
	for _, e := range []string{".json.gz", ".json", ".gz"} {
		if s, ok := strings.CutSuffix(base, e); ok && s != "" {
			stem, ext = s, e
			break
		}
	}
	return dir + fmt.Sprintf("%s.rank-%d%s", stem, rank, ext)
}
