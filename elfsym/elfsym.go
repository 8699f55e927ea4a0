// Package elfsym reads what difftrace needs of an ELF file's symbols: the
// functions called through its procedure linkage table, its GNU build id,
// and the names of the function at an address. Both the uftrace reader
// (for a recording whose recorder died before saving its symbols) and
// capture (naming the frames of a stack snapshot) use it.
package elfsym

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

// Error is an ELF file that could not be read, or that lacks what was
// asked of it: which file, and what.
type Error struct {
	File string
	What string // what was wrong or missing
	Err  error  // the cause, if any
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.File, e.What, e.Err)
	}
	return e.File + ": " + e.What
}

func (e *Error) Unwrap() error { return e.Err }

// PLTEntry is a function called through an image's procedure linkage
// table, at the address of its PLT entry (relative to the file's virtual
// addresses).
type PLTEntry struct {
	Name string
	Addr uint64
}

// PLTEntries lists the PLT entries of an x86-64 ELF file: the i-th
// R_X86_64_JUMP_SLOT relocation of .rela.plt is the entry at .plt.sec + 16·i
// when the file has .plt.sec (IBT), else at .plt + 16·(i+1). A file of
// another machine, or without a PLT, has none.
func PLTEntries(f *elf.File) []PLTEntry {
	rela := f.Section(".rela.plt")
	if rela == nil || f.Machine != elf.EM_X86_64 || f.Class != elf.ELFCLASS64 {
		return nil
	}
	data, err := rela.Data()
	if err != nil {
		return nil
	}
	dyn, err := f.DynamicSymbols()
	if err != nil {
		return nil
	}
	var base uint64
	if s := f.Section(".plt.sec"); s != nil {
		base = s.Addr
	} else if s := f.Section(".plt"); s != nil {
		base = s.Addr + 16
	} else {
		return nil
	}
	var out []PLTEntry
	for i := 0; i+24 <= len(data); i += 24 {
		info := binary.LittleEndian.Uint64(data[i+8:])
		if elf.R_X86_64(info&0xffffffff) != elf.R_X86_64_JMP_SLOT {
			continue
		}
		idx := int(info >> 32)
		if idx < 1 || idx > len(dyn) {
			continue
		}
		out = append(out, PLTEntry{Name: dyn[idx-1].Name, Addr: base + uint64(i/24)*16})
	}
	return out
}

// BuildID returns the GNU build id of an ELF file in hexadecimal, or "".
func BuildID(f *elf.File) string {
	for _, s := range f.Sections {
		if s.Type != elf.SHT_NOTE {
			continue
		}
		b, err := s.Data()
		if err != nil {
			continue
		}
		for len(b) >= 12 {
			nsz := int(binary.LittleEndian.Uint32(b))
			dsz := int(binary.LittleEndian.Uint32(b[4:]))
			typ := binary.LittleEndian.Uint32(b[8:])
			no := 12 + (nsz+3)&^3
			end := no + (dsz+3)&^3
			if end > len(b) || no+dsz > len(b) {
				break
			}
			if typ == 3 && bytes.Equal(bytes.TrimRight(b[12:12+nsz], "\x00"), []byte("GNU")) {
				return hex.EncodeToString(b[no : no+dsz])
			}
			b = b[end:]
		}
	}
	return ""
}

// IsFunc reports whether s is a function defined in its file.
func IsFunc(s elf.Symbol) bool {
	t := elf.ST_TYPE(s.Info)
	return (t == elf.STT_FUNC || t == elf.STT_GNU_IFUNC) && s.Section != elf.SHN_UNDEF
}

// FunctionNames returns every name of the function that contains the
// virtual address vaddr of the ELF file at path: a library often gives one
// function several names (MPI_Recv and PMPI_Recv), and which one a caller
// used can only be told from the caller's side. The error is an *Error.
func FunctionNames(path string, vaddr uint64) ([]string, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, &Error{File: path, What: "cannot read as an ELF file", Err: err}
	}
	defer f.Close()
	var all []elf.Symbol
	if s, err := f.Symbols(); err == nil {
		all = append(all, s...)
	}
	if s, err := f.DynamicSymbols(); err == nil {
		all = append(all, s...)
	}
	// The containing function: the highest start at or below vaddr whose
	// size (when known) covers it.
	var start uint64
	found := false
	for _, s := range all {
		if IsFunc(s) && s.Value <= vaddr && (s.Size == 0 || vaddr < s.Value+s.Size) && (!found || s.Value > start) {
			start, found = s.Value, true
		}
	}
	if !found {
		return nil, &Error{File: path, What: fmt.Sprintf("no function at address 0x%x", vaddr)}
	}
	var names []string
	for _, s := range all {
		if IsFunc(s) && s.Value == start {
			n, _, _ := strings.Cut(s.Name, "@")
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	slices.Sort(names)
	return names, nil
}
