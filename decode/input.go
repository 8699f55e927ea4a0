package decode

// Opening input files, with errors that say what is wrong and what to do.

import (
	"os"

	"github.com/difftrace/difftrace/internal/input"
)

// readManifestFile reads run.json, refusing what is not a regular file
// (rundir reads it through internal/input).
func readManifestFile(path string) (*Manifest, error) { return ReadManifest(path) }

// OpenInput opens a regular file for reading, with errors that say what is
// wrong and what to do; a directory, FIFO or device is refused without
// blocking (internal/input). It returns the file and its size.
func OpenInput(path string) (*os.File, int64, error) { return input.Open(path) }

// regularFile returns the size of the regular file at path, or an error that
// says what is there instead, without opening it.
func regularFile(path string) (int64, error) { return input.Stat(path) }
