package rundir

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/difftrace/difftrace/internal/input"
)

// ManifestName is the file name of a run directory's manifest.
const ManifestName = "run.json"

// ManifestSchema is the schema version written in every manifest; readers
// refuse newer major versions.
const ManifestSchema = 1

// Manifest is run.json: what this project's capture knows about a recorded
// run beyond the traces themselves. Every rank's recorder adds its own entry
// (to the rank log, RankLogName, under a file lock; the last recorder to
// end folds the log into run.json), so a manifest of a run whose recorders
// were killed may lack ranks; the traces remain the evidence.
type Manifest struct {
	Schema      int       `json:"schema"`
	Tool        string    `json:"tool"`         // "difftrace"
	ToolVersion string    `json:"tool_version"` // version of the recorder
	Format      string    `json:"format"`       // "parlot-17": the trace files' format
	Backend     string    `json:"backend"`      // "uftrace", "pin" or "convert"
	Images      string    `json:"images"`       // "main" (main image only) or "all" (all images)
	Prefix      string    `json:"prefix"`       // trace files are <prefix>.<rank>.info and <prefix>.<rank>.<thread>
	Command     []string  `json:"command"`      // the traced program and its arguments
	Start       time.Time `json:"start"`        // first rank's start
	End         time.Time `json:"end"`          // last rank's end (zero while running)
	Ranks       []Rank    `json:"ranks"`        // sorted by rank
	// Size is the number of processes the launcher started (its world
	// size), 0 where it is not known (manifests written before it, runs
	// converted from uftrace recordings): every rank is below it.
	Size int `json:"size,omitempty"`

	// Launch identifies one launch of the program (e.g. the MPI job id):
	// every recorder of that launch shares it, so a recorder can tell its
	// own run from an older one in the same directory.
	Launch string `json:"launch,omitempty"`

	// Recorded says which calls a selective recording (capture --only)
	// kept; nil when every call of the recorded images was (manifests
	// written before it, too).
	Recorded *Recorded `json:"recorded,omitempty"`
}

// Recorded is what a selective recording kept: only the calls its filter
// keeps are in the traces, so only filters that keep no other call can be
// analysed on them.
type Recorded struct {
	// Filter is the filter spec the recording selected with (filters
	// syntax: "mpi+omp", "mpi.sr+cust=^solve$").
	Filter string `json:"filter"`
	// Calls are the functions the recorder was asked for: the library
	// functions the program calls that Filter keeps, then the program's
	// own functions that it keeps.
	Calls []string `json:"calls"`
	// Stack names the program's functions recorded only to give the
	// selected calls their call stack; empty when the traces hold the
	// selected calls alone.
	Stack []string `json:"stack"`
}

// Rank is one process of a run as its recorder saw it.
type Rank struct {
	Rank  int       `json:"rank"`
	Host  string    `json:"host"`
	PID   int       `json:"pid"` // the traced program's process id
	Start time.Time `json:"start"`
	End   time.Time `json:"end"` // zero if the recorder never saw the end

	// How it ended: Exited with ExitStatus, or killed by Signal (e.g.
	// "SIGTERM"); KilledByTimeout when the recorder's --timeout fired.
	Exited          bool   `json:"exited"`
	ExitStatus      int    `json:"exit_status"`
	Signal          string `json:"signal,omitempty"`
	KilledByTimeout bool   `json:"killed_by_timeout"`
	// Status says in a few words how the rank ended, as capture saw it:
	// "exited 0", "exited 3 in MPI_Abort", "signal SIGSEGV in
	// crash_here", "killed by the launcher in MPI_Allreduce",
	// "interrupted (SIGINT)", "timed out in MPI_Recv" (the call it was in
	// when its trace ended). Empty in manifests written before it.
	Status string `json:"status,omitempty"`
	// Note says, in a sentence, anything else about the ending (e.g. that
	// the open frames of a hung thread were added from a stack snapshot).
	Note string `json:"note,omitempty"`

	Threads []Thread `json:"threads"` // sorted by thread index
}

// Thread is one traced thread of a rank.
type Thread struct {
	Thread int    `json:"thread"` // 0 = main, then creation order
	TID    int    `json:"tid"`    // the operating system's thread id
	Events uint64 `json:"events"` // values in the trace (entries + exits)
	Bytes  int64  `json:"bytes"`  // size of the compressed trace file
	// Waiting is the MPI call the thread was blocked in when capture
	// stopped the program, and whom it waited for (capture's peers
	// library); nil if it was in none, or the run ended by itself.
	Waiting *Waiting `json:"waiting,omitempty"`
}

// Waiting is a blocked MPI call and the ranks (of MPI_COMM_WORLD) it
// waits for.
type Waiting struct {
	Call string `json:"call"` // MPI_Recv, MPI_Waitall, MPI_Allreduce, …
	// Peers: the ranks a point-to-point call or a wait for requests waits
	// for, or the members of a collective's communicator (all ranks if
	// World).
	Peers      []int `json:"peers"`
	Collective bool  `json:"collective,omitempty"`
	World      bool  `json:"world,omitempty"`      // a collective on MPI_COMM_WORLD
	AnySource  bool  `json:"any_source,omitempty"` // MPI_ANY_SOURCE among the peers
	Unknown    bool  `json:"unknown,omitempty"`    // a peer that could not be told
}

// ReadManifest reads and checks a run.json file, with the entries the
// rank log next to it (RankLogName) holds of a run still running or cut
// short: a manifest that contradicts itself (a rank listed twice, a rank
// beyond the run's size, a rank that both exited and was killed) is
// refused with an error that names the field, since what it says about
// the run can then not be trusted.
func ReadManifest(path string) (*Manifest, error) { return readManifest(path, true) }

// ReadWritten reads and checks run.json as it was written, without the
// rank log: what a recorder checks its launch against, at a cost that
// does not grow with the ranks that have ended.
func ReadWritten(path string) (*Manifest, error) { return readManifest(path, false) }

func readManifest(path string, withLog bool) (*Manifest, error) {
	b, err := input.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("%s: byte %d: malformed run manifest: %w (fix or remove the file; the traces can be read without it)", path, se.Offset, err)
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, fmt.Errorf("%s: byte %d: malformed run manifest, field %s: %w (fix or remove the file; the traces can be read without it)", path, te.Offset, te.Field, err)
		}
		return nil, fmt.Errorf("%s: malformed run manifest: %w (fix or remove the file; the traces can be read without it)", path, err)
	}
	switch {
	case m.Schema < 1:
		// null, {} or any object without "schema": not capture's.
		return nil, fmt.Errorf("%s has no schema: it was not written by difftrace capture (or is damaged); fix or remove the file (the traces can be read without it)", path)
	case m.Schema > ManifestSchema:
		return nil, fmt.Errorf("%s: manifest schema %d is newer than this difftrace reads (1 to %d); use a newer difftrace", path, m.Schema, ManifestSchema)
	}
	if withLog {
		if err := readRankLog(filepath.Join(filepath.Dir(path), RankLogName), &m); err != nil {
			return nil, err
		}
	}
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("%s: %w; fix or remove the file (the traces can be read without it)", path, err)
	}
	// Capture writes the ranks in order; kept so, Rank finds one by
	// binary search (a run of 250,000 ranks looks each of them up).
	m.sortRanks()
	return &m, nil
}

func byRank(a, b Rank) int { return cmp.Compare(a.Rank, b.Rank) }

// check finds what a manifest says against itself; the error names the
// field, as ranks[3].rank.
func (m *Manifest) check() error {
	if m.Size < 0 {
		return fmt.Errorf("size: %d, a number of processes cannot be negative", m.Size)
	}
	if strings.ContainsAny(m.Prefix, "/\x00") || m.Prefix == "." || m.Prefix == ".." {
		return fmt.Errorf("prefix: %q is not a file-name prefix", m.Prefix)
	}
	at := map[int]int{} // rank → index in Ranks
	for i := range m.Ranks {
		r := &m.Ranks[i]
		f := fmt.Sprintf("ranks[%d]", i)
		switch {
		case r.Rank < 0:
			return fmt.Errorf("%s.rank: %d, a rank cannot be negative", f, r.Rank)
		case m.Size > 0 && r.Rank >= m.Size:
			return fmt.Errorf("%s.rank: %d, but the run has %d ranks (size)", f, r.Rank, m.Size)
		}
		if j, dup := at[r.Rank]; dup {
			return fmt.Errorf("%s.rank: %d, and ranks[%d] is rank %d too (%s there, %s here): a rank is listed once", f, r.Rank, j, r.Rank, m.Ranks[j].Ended(), r.Ended())
		}
		at[r.Rank] = i
		switch {
		case r.PID < 0:
			return fmt.Errorf("%s.pid: %d, a process id cannot be negative", f, r.PID)
		case r.Exited && r.Signal != "":
			return fmt.Errorf("%s: exited is true (status %d) and signal is %q: a process either exits or is killed", f, r.ExitStatus, r.Signal)
		case r.ExitStatus < 0 || r.ExitStatus > 255:
			return fmt.Errorf("%s.exit_status: %d, an exit status is 0 to 255", f, r.ExitStatus)
		case !r.Exited && r.ExitStatus != 0:
			return fmt.Errorf("%s.exit_status: %d, but exited is false", f, r.ExitStatus)
		}
		threads := map[int]int{}
		for k, th := range r.Threads {
			tf := fmt.Sprintf("%s.threads[%d]", f, k)
			if th.Thread < 0 {
				return fmt.Errorf("%s.thread: %d, a thread index cannot be negative", tf, th.Thread)
			}
			if j, dup := threads[th.Thread]; dup {
				return fmt.Errorf("%s.thread: %d, and %s.threads[%d] is thread %d too: a thread is listed once", tf, th.Thread, f, j, th.Thread)
			}
			threads[th.Thread] = k
			if th.Bytes < 0 {
				return fmt.Errorf("%s.bytes: %d, a size cannot be negative", tf, th.Bytes)
			}
			if w := th.Waiting; w != nil {
				for p, peer := range w.Peers {
					if peer < 0 || m.Size > 0 && peer >= m.Size {
						return fmt.Errorf("%s.waiting.peers[%d]: %d, not a rank of the run (size %d)", tf, p, peer, m.Size)
					}
				}
			}
		}
	}
	return nil
}

// RankList says which ranks the manifest lists: "ranks 0 to 7", "ranks 0,
// 2 and 5", "no ranks".
func (m *Manifest) RankList() string {
	var rs []int
	for _, r := range m.Ranks {
		rs = append(rs, r.Rank)
	}
	slices.Sort(rs)
	switch {
	case len(rs) == 0:
		return "no ranks"
	case len(rs) == 1:
		return fmt.Sprintf("rank %d", rs[0])
	case rs[len(rs)-1]-rs[0] == len(rs)-1:
		return fmt.Sprintf("ranks %d to %d", rs[0], rs[len(rs)-1])
	}
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = strconv.Itoa(r)
	}
	return "ranks " + strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// Threads counts the threads of all the manifest's ranks.
func (m *Manifest) Threads() int {
	n := 0
	for _, r := range m.Ranks {
		n += len(r.Threads)
	}
	return n
}

// Rank returns the entry of rank r, if the manifest has one.
func (m *Manifest) Rank(r int) (*Rank, bool) {
	// By binary search in Ranks sorted by rank (as ReadManifest leaves
	// them), and otherwise in order.
	if i, ok := slices.BinarySearchFunc(m.Ranks, r, func(x Rank, r int) int { return cmp.Compare(x.Rank, r) }); ok {
		return &m.Ranks[i], true
	}
	for i := range m.Ranks {
		if m.Ranks[i].Rank == r {
			return &m.Ranks[i], true
		}
	}
	return nil, false
}
