package record

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/difftrace/difftrace/parlot"
)

// OddU16Error is a u16 trace of an odd number of bytes: truncated, or not
// a u16 trace.
type OddU16Error struct {
	Name string
	Size int64 // the length read, in bytes
}

func (e *OddU16Error) Error() string {
	return fmt.Sprintf("%s: byte %d: the file has an odd number of bytes, but a u16 trace holds 2-byte values (the file is truncated or not a u16 trace)", e.Name, e.Size-1)
}

// ConvertU16 compresses the u16 trace src (little-endian uint16 values: a
// function ID at every entry, 0 at every exit, as decode.WriteU16 writes
// them) into the ParLOT trace dst, streaming. srcName and dstName name
// them in errors.
func ConvertU16(dst io.Writer, dstName string, src io.Reader, srcName string) error {
	w := parlot.NewWriter(dst)
	buf := make([]byte, 256<<10)
	vals := make([]uint16, len(buf)/2)
	var off int64
	for {
		n, err := io.ReadFull(src, buf)
		if n%2 != 0 && err == nil {
			return fmt.Errorf("%s: byte %d: short read", srcName, off+int64(n))
		}
		for i := range n / 2 {
			vals[i] = binary.LittleEndian.Uint16(buf[2*i:])
		}
		if werr := w.Write(vals[:n/2]); werr != nil {
			return fmt.Errorf("%s: %v", dstName, werr)
		}
		off += int64(n)
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: byte %d: cannot read: %v", srcName, off, err)
		}
	}
	if off%2 != 0 {
		return &OddU16Error{Name: srcName, Size: off}
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("%s: %v", dstName, err)
	}
	return nil
}
