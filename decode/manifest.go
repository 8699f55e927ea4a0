package decode

import "github.com/difftrace/difftrace/rundir"

// The run.json model lives in package rundir, which writers of runs share
// with this reader; these names keep decode's callers as they were.

// ManifestName is the file name of a run directory's manifest.
const ManifestName = rundir.ManifestName

// ManifestSchema is the schema version written in every manifest.
const ManifestSchema = rundir.ManifestSchema

// DefaultPrefix is the trace-file prefix of this project's run directories.
const DefaultPrefix = rundir.DefaultPrefix

// The manifest's parts (see package rundir).
type (
	Manifest = rundir.Manifest
	Recorded = rundir.Recorded
	Rank     = rundir.Rank
	Thread   = rundir.Thread
	Waiting  = rundir.Waiting
)

// ReadManifest reads and checks a run.json file (rundir.ReadManifest).
func ReadManifest(path string) (*Manifest, error) { return rundir.ReadManifest(path) }

// Ending returns Rank.Ending for rank r of the run, or "" when the run has
// no manifest or the manifest does not list r: only a recorded abnormal end
// counts as one.
func (run *Run) Ending(r int) string {
	if run.Manifest == nil {
		return ""
	}
	if rk, ok := run.Manifest.Rank(r); ok {
		return rk.Ending()
	}
	return ""
}
