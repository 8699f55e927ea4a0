package rundir

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/difftrace/difftrace/internal/input"
	"github.com/difftrace/difftrace/internal/private"
)

// RankLogName is the file, next to run.json, that the recorders of a run
// append their ranks' entries to while it runs, one JSON object (a Rank)
// a line. Rewriting run.json for each rank that starts or ends costs the
// whole manifest each time, quadratic in the ranks: at 250,000 ranks,
// hours. The last recorder to end folds the log into run.json once
// (Assemble) and removes it; ReadManifest merges what a run cut short left
// in it, so a reader sees every rank either way.
const RankLogName = ".run.ranks"

// AppendRank appends r's entry to the rank log of dir in one write. The
// caller serialises the recorders of a run (capture holds the directory's
// lock), so lines never interleave; a later entry of a rank replaces an
// earlier one.
func AppendRank(dir string, r Rank) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("rank %d: %w", r.Rank, err)
	}
	b = append(b, '\n')
	f, err := private.OpenFile(filepath.Join(dir, RankLogName), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Assemble folds the rank log of dir into its run.json, writes that once
// (WriteManifest) and removes the log. A directory without a log is left
// as it is. The caller holds the directory against recorders that append.
func Assemble(dir string) error {
	logPath := filepath.Join(dir, RankLogName)
	if _, err := os.Lstat(logPath); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	m, err := ReadManifest(filepath.Join(dir, ManifestName))
	if err != nil {
		return err
	}
	if err := WriteManifest(dir, m); err != nil {
		return err
	}
	return os.Remove(logPath)
}

// readRankLog reads the rank log at path into m: each entry replaces the
// rank's entry in m, and the run's start and end widen to cover it. A
// missing log is no error; a damaged line is one, naming the line and its
// byte offset. A last line without its newline is a write cut short (the
// recorder was killed) and is left out.
func readRankLog(path string, m *Manifest) error {
	f, _, err := input.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	at := make(map[int]int, len(m.Ranks)) // rank → index in m.Ranks
	for i, r := range m.Ranks {
		at[r.Rank] = i
	}
	br := bufio.NewReaderSize(f, 1<<16)
	var off int64
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if err == io.EOF {
			return nil // a partial last line: its writer died
		}
		if err != nil {
			return err
		}
		var r Rank
		if err := json.Unmarshal(b, &r); err != nil {
			return fmt.Errorf("%s: line %d (byte %d): damaged rank entry: %w (remove the line, or the file to keep run.json as it is)", path, line, off, err)
		}
		off += int64(len(b))
		if i, ok := at[r.Rank]; ok {
			m.Ranks[i] = r
		} else {
			at[r.Rank] = len(m.Ranks)
			m.Ranks = append(m.Ranks, r)
		}
		if m.Start.IsZero() || !r.Start.IsZero() && r.Start.Before(m.Start) {
			m.Start = r.Start
		}
		if r.End.After(m.End) {
			m.End = r.End
		}
	}
}

// sortRanks sorts m's ranks, as capture writes them and Rank searches them.
func (m *Manifest) sortRanks() {
	if !slices.IsSortedFunc(m.Ranks, byRank) {
		slices.SortStableFunc(m.Ranks, byRank)
	}
}
