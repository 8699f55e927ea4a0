package record

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"slices"
	"strings"
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
	f, err := elf.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
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
	for slot, name := range pltSlots(f) {
		if slices.Contains(callees, name) {
			for _, stub := range pltStubs(f, slot) {
				targets[stub] = true
			}
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

// pltSlots maps the GOT slots of the file's jump relocations (.rela.plt) to
// the names of the functions they bind.
func pltSlots(f *elf.File) map[uint64]string {
	out := map[uint64]string{}
	sec := f.Section(".rela.plt")
	dyn, err := f.DynamicSymbols()
	if sec == nil || err != nil || f.Class != elf.ELFCLASS64 {
		return out
	}
	data, err := sec.Data()
	if err != nil {
		return out
	}
	for i := 0; i+24 <= len(data); i += 24 {
		off := binary.LittleEndian.Uint64(data[i:])
		sym := binary.LittleEndian.Uint64(data[i+8:]) >> 32
		if sym >= 1 && int(sym) <= len(dyn) {
			n, _, _ := strings.Cut(dyn[sym-1].Name, "@")
			out[off] = n
		}
	}
	return out
}

// pltStubs returns the addresses of the stubs in the file's procedure
// linkage table sections that jump through GOT slot: "jmp *disp32(%rip)"
// (FF 25), with or without an endbr64 and a bnd prefix before it.
func pltStubs(f *elf.File, slot uint64) []uint64 {
	var out []uint64
	for _, name := range []string{".plt", ".plt.sec"} {
		sec := f.Section(name)
		if sec == nil {
			continue
		}
		code, err := sec.Data()
		if err != nil {
			continue
		}
		for i := 0; i+6 <= len(code); i++ {
			if code[i] != 0xff || code[i+1] != 0x25 {
				continue
			}
			next := sec.Addr + uint64(i) + 6
			if next+uint64(int64(int32(binary.LittleEndian.Uint32(code[i+2:i+6])))) != slot {
				continue
			}
			start := i
			if start >= 1 && code[start-1] == 0xf2 { // bnd
				start--
			}
			if start >= 4 && bytes.Equal(code[start-4:start], []byte{0xf3, 0x0f, 0x1e, 0xfa}) { // endbr64
				start -= 4
			}
			out = append(out, sec.Addr+uint64(start))
		}
	}
	return out
}

// readVaddr reads size bytes at virtual address addr from the file's
// loadable segments, or nil.
func readVaddr(f *elf.File, addr, size uint64) []byte {
	if size > 1<<20 {
		return nil
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && addr >= p.Vaddr && addr+size <= p.Vaddr+p.Filesz {
			b := make([]byte, size)
			if _, err := p.ReadAt(b, int64(addr-p.Vaddr)); err != nil {
				return nil
			}
			return b
		}
	}
	return nil
}
