// Package uftrace reads uftrace's data format (data format version 4, as
// uftrace 0.13 writes it): the bits of a record, which capture's receiver
// parses as uftrace sends them over a socket while the program runs, and
// a recording's data directory (Open), which decode reads as a run and
// capture converts into ParLOT traces. Errors in a recording's files are
// *Error values naming the file and the line or byte where it is damaged.
//
// A record is two little-endian 64-bit words: the time in nanoseconds
// (CLOCK_MONOTONIC unless recorded with --clock), then the bit fields
// type:2 (entry, exit, lost, event), more:1, magic:3 (always 5), depth:10
// and addr:48 (the function's address, the count of lost records, or the
// event id). An event record with more set is followed by its payload: a
// 16-bit size, the data, padded to 8 bytes. A record of another type with
// more set carries function arguments or return values (uftrace -A/-R/-a).
package uftrace

import "encoding/binary"

// Kind is the type of a record.
type Kind uint8

// The record types.
const (
	Entry Kind = 0
	Exit  Kind = 1
	Lost  Kind = 2
	Event Kind = 3
)

// RecordSize is the size of a record without payload, in bytes.
const RecordSize = 16

// MaxDepth bounds a record's call depth: the field has 10 bits.
const MaxDepth = 1 << 10

// recordMagic is the magic field of every record.
const recordMagic = 5

// The info file starts with a header of HeaderSize bytes, the first eight
// of them Magic.
const (
	Magic      = "Ftrace!\x00"
	HeaderSize = 40
)

// Feature bits of the info header that change how records read.
const (
	FeatArgument = 1 << 3 // records may carry function arguments
	FeatRetval   = 1 << 4 // records may carry return values
	FeatRelAddr  = 1 << 5 // addresses are relative to their image
)

// Record is one record of a thread's data.
type Record struct {
	Time  uint64 // nanoseconds on uftrace's clock
	Kind  Kind
	Depth int
	Addr  uint64 // function address; lost-record count for Lost; event id for Event
}

// Word is a record's second word, its bit fields.
type Word uint64

// WordOf returns the bit fields of the record that b starts with (at least
// RecordSize bytes).
func WordOf(b []byte) Word { return Word(binary.LittleEndian.Uint64(b[8:])) }

// TimeOf returns the time of the record that b starts with.
func TimeOf(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }

// Kind is the record's type.
func (w Word) Kind() Kind { return Kind(w & 3) }

// More reports whether something follows the record: an event's payload,
// or function arguments.
func (w Word) More() bool { return w>>2&1 == 1 }

// Valid reports whether the record's magic is right: a record whose magic
// is not is damaged, or not a record.
func (w Word) Valid() bool { return w>>3&7 == recordMagic }

// Depth is the call depth.
func (w Word) Depth() int { return int(w >> 6 & (MaxDepth - 1)) }

// Addr is the function's address, the count of lost records or the event
// id.
func (w Word) Addr() uint64 { return uint64(w >> 16) }

// Plain reports whether the record is a valid entry or exit with nothing
// after it, the records a recording is made of: one test for the hot
// loops.
func (w Word) Plain() bool { return w&(7<<3|1<<2|1<<1) == recordMagic<<3 }

// Parse returns the record that b starts with (at least RecordSize bytes)
// and its bit fields.
func Parse(b []byte) (Record, Word) {
	w := WordOf(b)
	return Record{Time: TimeOf(b), Kind: w.Kind(), Depth: w.Depth(), Addr: w.Addr()}, w
}

// PayloadSize is how many bytes an event's payload takes after its record,
// given the 16-bit size that starts it: the size field, the data and the
// padding to 8 bytes.
func PayloadSize(size uint16) int { return (int(size) + 2 + 7) &^ 7 }

// Append appends r to b as uftrace writes it, with the more bit if more.
func Append(b []byte, r Record, more bool) []byte {
	w := uint64(r.Kind)&3 | recordMagic<<3 | uint64(r.Depth&(MaxDepth-1))<<6 | r.Addr<<16
	if more {
		w |= 1 << 2
	}
	b = binary.LittleEndian.AppendUint64(b, r.Time)
	return binary.LittleEndian.AppendUint64(b, w)
}
