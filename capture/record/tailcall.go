package record

import (
	"debug/elf"
	"encoding/binary"
	"slices"
	"strings"

	"github.com/difftrace/difftrace/elfsym"
)

// tailCaller finds which of the functions names, defined in the ELF file at
// path, reaches a function named in callees by a tail call: a jump (near or
// short) to the start of that function or to the library's own procedure
// linkage table stub for it. A thread blocked in MPI_Finalize is inside
// ompi_mpi_finalize, because Open MPI's PMPI_Finalize ends with "jmp
// ompi_mpi_finalize@plt": its stack has no frame of the function the
// program called, and this names it. Only one level of tail call is
// followed, and only jumps found by scanning the caller's bytes (a byte
// pattern inside another instruction could match, but must then also land
// exactly on a callee). It returns "" when no name qualifies.
func tailCaller(path string, names, callees []string) string {
	f := openCode(path)
	if f == nil {
		return ""
	}
	syms, _ := f.DynamicSymbols()
	if s, err := f.Symbols(); err == nil {
		syms = append(syms, s...)
	}
	isFunc := func(s elf.Symbol) bool {
		t := elf.ST_TYPE(s.Info)
		return (t == elf.STT_FUNC || t == elf.STT_GNU_IFUNC) && s.Section != elf.SHN_UNDEF
	}
	base := func(name string) string { n, _, _ := strings.Cut(name, "@"); return n }
	targets := map[uint64]bool{}
	for _, s := range syms {
		if isFunc(s) && slices.Contains(callees, base(s.Name)) {
			targets[s.Value] = true
		}
	}
	for _, e := range elfsym.PLTEntries(f) {
		if slices.Contains(callees, base(e.Name)) {
			targets[e.Addr] = true
		}
	}
	if len(targets) == 0 {
		return ""
	}
	for _, s := range syms {
		if !isFunc(s) || s.Size == 0 || !slices.Contains(names, base(s.Name)) {
			continue
		}
		code := readVaddr(f, s.Value, s.Size)
		for i := range code {
			var to uint64
			switch {
			case code[i] == 0xe9 && i+5 <= len(code):
				to = s.Value + uint64(i) + 5 + uint64(int64(int32(binary.LittleEndian.Uint32(code[i+1:i+5]))))
			case code[i] == 0xeb && i+2 <= len(code):
				to = s.Value + uint64(i) + 2 + uint64(int64(int8(code[i+1])))
			default:
				continue
			}
			if targets[to] {
				return base(s.Name)
			}
		}
	}
	return ""
}
