// Package chrome writes traces as Chrome trace-event JSON, the "JSON Object
// Format" that Perfetto UI (ui.perfetto.dev) and chrome://tracing open: an
// object whose traceEvents array holds one event per call entry and exit,
// with displayTimeUnit and otherData beside it.
//
// Each traced thread is a track: pid is the process (the MPI rank) plus
// one, tid the thread plus one (Perfetto treats pid 0 and tid 0 apart),
// and metadata events ("M") name them "rank 3" and "thread 1". A
// call is a slice opened by a "B" event at its entry and closed by an "E"
// event at its exit, so slices nest as the calls did. B/E events are
// written as the events are decoded, one at a time, which complete ("X")
// events, whose duration must be known when the entry is written, would
// not allow.
//
// ParLOT traces hold no timestamps. Time is the event's index in its trace
// as recorded: entry or exit number i is at ts = i, one microsecond per
// event (a filter hides calls, never moves the others), so a slice's width
// is the number of events between its entry and its exit, and ts N is
// event N of "difftrace decode --stack-at N". Traces are separate clocks:
// the same ts in two tracks is not the same moment. A trace that ends
// inside calls (a hang, a crash, a kill) has its open slices closed one
// tick after its last event, the E events marked with args.unfinished, and
// an instant event there says how many were open. otherData says all this
// in the file itself.
//
// Writer is the codec, modelled on compress/flate's Writer: NewWriter,
// one Track per trace fed with the trace's events chunk by chunk as
// decode.Run.Stream hands them over, and Close. AddRun adds every trace of
// a run, and AddDiff the two runs' versions of one trace, aligned at the
// first event where they differ (Align). Size tells how large a run's
// JSON will be, so that a caller can write one file per rank (ByRank)
// when a single file would be more than a viewer loads (SplitSize).
package chrome
