package trace

import (
	"fmt"
	"strconv"
	"strings"
)

// AllThreads is the Thread of an ID that names a whole process (process-level
// analysis merges a process's threads into one object).
const AllThreads = -1

// ID names one trace: process P (MPI rank, or index by ascending pid) and
// thread T (0 = main thread, then creation order). Its text form is "P.T", or
// "P" for a whole process.
type ID struct {
	Proc   int
	Thread int
}

// String returns "P.T", or "P" when the ID names a whole process.
func (id ID) String() string {
	if id.Thread == AllThreads {
		return strconv.Itoa(id.Proc)
	}
	return strconv.Itoa(id.Proc) + "." + strconv.Itoa(id.Thread)
}

// IsProcess reports whether the ID names a whole process.
func (id ID) IsProcess() bool { return id.Thread == AllThreads }

// Process returns the ID of the process this trace belongs to.
func (id ID) Process() ID { return ID{Proc: id.Proc, Thread: AllThreads} }

// Less orders IDs by process, then thread (a whole process sorts first).
func (id ID) Less(o ID) bool {
	if id.Proc != o.Proc {
		return id.Proc < o.Proc
	}
	return id.Thread < o.Thread
}

// Compare returns -1, 0 or +1 as id sorts before, equal to or after o.
func (id ID) Compare(o ID) int {
	switch {
	case id.Less(o):
		return -1
	case o.Less(id):
		return 1
	}
	return 0
}

// ParseID reads "P.T" or "P" (a whole process). Both numbers are decimal and
// non-negative.
func ParseID(s string) (ID, error) {
	p, t, hasThread := strings.Cut(strings.TrimSpace(s), ".")
	proc, err := strconv.Atoi(p)
	if err != nil || proc < 0 {
		return ID{}, fmt.Errorf("trace id %q: want P.T (process.thread, e.g. 6.4) or P (a process, e.g. 5)", s)
	}
	if !hasThread {
		return ID{Proc: proc, Thread: AllThreads}, nil
	}
	thread, err := strconv.Atoi(t)
	if err != nil || thread < 0 {
		return ID{}, fmt.Errorf("trace id %q: want P.T (process.thread, e.g. 6.4) or P (a process, e.g. 5)", s)
	}
	return ID{Proc: proc, Thread: thread}, nil
}

// MarshalText writes the ID as String does ("5.0", or "5" for a process), so
// an ID is text in JSON and other text encodings.
func (id ID) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

// UnmarshalText reads an ID as ParseID does.
func (id *ID) UnmarshalText(b []byte) error {
	v, err := ParseID(string(b))
	if err != nil {
		return err
	}
	*id = v
	return nil
}
