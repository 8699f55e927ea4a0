package trace

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// List names traces compactly: when all are main threads (thread 0),
// their processes as ranges, "[0-1,3-5]"; otherwise each process's
// threads, "0.[0-4], 3.[1,3]", consecutive processes with the same threads
// together, "[0-1023].[0-3]".
func List(ids []ID) string {
	ids = slices.Clone(ids)
	slices.SortFunc(ids, func(a, b ID) int {
		if a.Proc != b.Proc {
			return a.Proc - b.Proc
		}
		return a.Thread - b.Thread
	})
	mains := true
	for _, id := range ids {
		if id.Thread != 0 {
			mains = false
		}
	}
	if mains {
		procs := make([]int, len(ids))
		for i, id := range ids {
			procs[i] = id.Proc
		}
		return "[" + Ranges(procs) + "]"
	}
	// Each process's threads, then runs of consecutive processes with the
	// same threads as one: "[0-1023].[0-3]".
	var procs []int
	var sets []string
	for i := 0; i < len(ids); {
		j := i
		var ths []int
		for j < len(ids) && ids[j].Proc == ids[i].Proc {
			ths = append(ths, ids[j].Thread)
			j++
		}
		set := strconv.Itoa(ths[0])
		if len(ths) > 1 {
			set = "[" + Ranges(ths) + "]"
		}
		procs, sets = append(procs, ids[i].Proc), append(sets, set)
		i = j
	}
	var parts []string
	for i := 0; i < len(procs); {
		j := i
		for j+1 < len(procs) && procs[j+1] == procs[j]+1 && sets[j+1] == sets[i] {
			j++
		}
		if j == i {
			parts = append(parts, fmt.Sprintf("%d.%s", procs[i], sets[i]))
		} else {
			parts = append(parts, fmt.Sprintf("[%d-%d].%s", procs[i], procs[j], sets[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// Ranges writes ascending distinct integers as "0-1,3-5,9".
func Ranges(xs []int) string {
	var parts []string
	for i := 0; i < len(xs); {
		j := i
		for j+1 < len(xs) && xs[j+1] == xs[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(xs[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", xs[i], xs[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}
