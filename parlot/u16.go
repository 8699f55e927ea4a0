package parlot

// The u16 form of a trace: its values uncompressed, each a little-endian
// uint16 — a function ID at every entry, 0 at every exit. It is what the
// reference files under testdata/parlot hold beside their ParLOT files,
// what difftrace decode --format u16 writes and convert --from u16 reads.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"unsafe"
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
// function ID at every entry, 0 at every exit, as WriteU16 writes
// them) into the ParLOT trace dst, streaming. srcName and dstName name
// them in errors.
func ConvertU16(dst io.Writer, dstName string, src io.Reader, srcName string) error {
	w := NewWriter(dst)
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
			return fmt.Errorf("%s: %w", dstName, werr)
		}
		off += int64(n)
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: byte %d: cannot read: %w", srcName, off, err)
		}
	}
	if off%2 != 0 {
		return &OddU16Error{Name: srcName, Size: off}
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("%s: %w", dstName, err)
	}
	return nil
}

// littleEndian reports whether this machine stores a uint16 as the
// little-endian bytes WriteU16 writes.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// WriteU16 writes the values r decodes to w as little-endian uint16, the
// u16 form of a trace: a function ID at every entry, 0 at every exit, the
// decoded file byte for byte. It streams to the end of the trace and
// returns r's errors and w's as they are.
func WriteU16(w io.Writer, r *Reader) error {
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

// AppendU16 appends vals to b in the u16 form.
func AppendU16(b []byte, vals []uint16) []byte {
	for _, v := range vals {
		b = binary.LittleEndian.AppendUint16(b, v)
	}
	return b
}

// ParseU16 returns the values of the u16 trace b; name names it in the
// error for an odd number of bytes.
func ParseU16(b []byte, name string) ([]uint16, error) {
	if len(b)%2 != 0 {
		return nil, &OddU16Error{Name: name, Size: int64(len(b))}
	}
	vals := make([]uint16, len(b)/2)
	for i := range vals {
		vals[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return vals, nil
}
