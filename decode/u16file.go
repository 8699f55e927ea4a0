package decode

import (
	"github.com/difftrace/difftrace/internal/outfile"
	"github.com/difftrace/difftrace/parlot"
)

// ConvertU16File compresses the raw values (little-endian uint16) of the
// file inPath into the ParLOT trace file outPath (parlot.ConvertU16),
// which appears whole or not at all and never over inPath. A file of an
// odd size is refused before anything is written (parlot.OddU16Error).
func ConvertU16File(inPath, outPath string) error {
	in, size, err := OpenInput(inPath)
	if err != nil {
		return err
	}
	defer in.Close()
	if size%2 != 0 {
		return &parlot.OddU16Error{Name: inPath, Size: size}
	}
	out, err := outfile.Create(outPath, nil, inPath)
	if err != nil {
		return err
	}
	defer out.Abort()
	if err := parlot.ConvertU16(out, outPath, in, inPath); err != nil {
		return err
	}
	return out.Commit()
}
