// Package parlot reads and writes ParLOT traces (docs/parlot-format.md): the
// LZa3|ZE compressed stream of a thread's function IDs (Reader, Writer) and
// the .info function table that names them (FuncTable, ImageSections).
// Both directions match the reference ParLOT tool byte for byte; the files
// under testdata/parlot, written by that tool, check it.
package parlot

// lzHash is the LZ stage's hash after value v: both the writer and the
// reader update it after every value that enters the stream, and look up
// the last position of the value the hash names.
func lzHash(hash, v uint16) uint16 { return (hash<<4 ^ v) & 4095 }
