package uftrace

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/difftrace/difftrace/internal/input"
	"github.com/difftrace/difftrace/internal/readerr"
)

// Where recordings are: one uftrace data directory, or a directory of
// them, one per MPI rank (under mpirun every rank's `uftrace record` needs
// a directory of its own, e.g. `-d uftrace.$OMPI_COMM_WORLD_RANK`, which
// is also the name capture --keep-uftrace gives them). The number that
// ends each subdirectory's name is its rank; if the names do not end in
// distinct numbers, ranks follow the names' sorted order.

// IsDataDir tells whether the directory dir, whose entries are names, is a
// uftrace data directory (complete or not: Open then says what is
// missing).
func IsDataDir(dir string, names []string) bool {
	hasInfo := false
	for _, n := range names {
		switch {
		case n == "task.txt":
			return true
		case strings.HasPrefix(n, "sid-") && strings.HasSuffix(n, ".map"):
			return true
		case n == "info":
			hasInfo = true
		}
	}
	if !hasInfo {
		return false
	}
	f, _, err := input.Open(filepath.Join(dir, "info"))
	if err != nil {
		return false
	}
	defer f.Close()
	var magic [len(Magic)]byte
	_, err = io.ReadFull(f, magic[:])
	return err == nil && string(magic[:]) == Magic
}

// DataSubdirs returns the entries of dir (names, sorted) that are uftrace
// data directories.
func DataSubdirs(dir string, names []string) []string {
	var subs []string
	for _, n := range names {
		p := filepath.Join(dir, n)
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			continue
		}
		ents, err := os.ReadDir(p)
		if err != nil {
			continue
		}
		names := make([]string, len(ents))
		for i, e := range ents {
			names[i] = e.Name()
		}
		if IsDataDir(p, names) {
			subs = append(subs, n)
		}
	}
	return subs
}

// RankDirs returns the uftrace data directories that dir holds, one per
// MPI rank, with their ranks (see RankNumbers; numbered is false when the
// ranks follow the names' sorted order). It returns no directories if dir
// is itself a uftrace data directory, or holds none.
func RankDirs(dir string) (dirs []string, ranks []int, numbered bool, err error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, false, readerr.New(dir, err)
	}
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = e.Name()
	}
	if IsDataDir(dir, names) {
		return nil, nil, false, nil
	}
	subs := DataSubdirs(dir, names)
	ranks, numbered = RankNumbers(subs)
	for _, s := range subs {
		dirs = append(dirs, filepath.Join(dir, s))
	}
	return dirs, ranks, numbered, nil
}

// DirRanks returns the ranks of uftrace data directories given by path, as
// if a directory held them (see RankDirs): the numbers that end their
// names, if they are distinct (ok).
func DirRanks(paths []string) (ranks []int, ok bool) {
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = filepath.Base(filepath.Clean(p))
	}
	return RankNumbers(names)
}

// RankNumbers returns the rank of each of the recordings named by names:
// the number that ends its name, when every name ends in one and no two
// are equal (numbered); otherwise its position in names.
func RankNumbers(names []string) (ranks []int, numbered bool) {
	ranks = make([]int, len(names))
	seen := map[int]bool{}
	for i, n := range names {
		j := len(n)
		for j > 0 && n[j-1] >= '0' && n[j-1] <= '9' {
			j--
		}
		v, err := strconv.Atoi(n[j:])
		if j == len(n) || err != nil || seen[v] {
			for i := range ranks {
				ranks[i] = i
			}
			return ranks, false
		}
		seen[v] = true
		ranks[i] = v
	}
	return ranks, true
}
