package rundir

import (
	"encoding/json"
	"path/filepath"
	"slices"

	"github.com/difftrace/difftrace/internal/atomicfile"
)

// WriteManifest writes m as dir's run.json, its ranks sorted, so that a
// reader sees either the old manifest or the new one, never part of one:
// under a temporary name in dir, renamed into place. As uftrace writes its
// own files, it is not synced first (a sync per rank would hold up the end
// of every rank). Errors are the file system's, as they are.
func WriteManifest(dir string, m *Manifest) error {
	slices.SortFunc(m.Ranks, func(a, b Rank) int { return a.Rank - b.Rank })
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	f, err := atomicfile.Create(filepath.Join(dir, ManifestName))
	if err != nil {
		return err
	}
	f.NoSync()
	if _, err := f.Write(b); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}
