package decode

import (
	"encoding/binary"
	"io"
	"unsafe"

	"github.com/difftrace/difftrace/parlot"
)

// littleEndian reports whether this machine stores a uint16 as the
// little-endian bytes WriteU16 writes.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// WriteU16 writes the values r decodes to w as little-endian uint16, the
// u16 form of a trace: a function ID at every entry, 0 at every exit, the
// decoded file byte for byte. It streams to the end of the trace and
// returns r's errors and w's as they are.
func WriteU16(w io.Writer, r *parlot.Reader) error {
	vals := make([]uint16, 256<<10)
	buf := make([]byte, 2*len(vals))
	for {
		n, err := r.Read(vals)
		b := buf[:2*n]
		if littleEndian {
			// The values are already laid out as the bytes to write.
			b = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(vals))), 2*n)
		} else {
			for i, v := range vals[:n] {
				binary.LittleEndian.PutUint16(buf[2*i:], v)
			}
		}
		if _, werr := w.Write(b); werr != nil {
			return werr
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
