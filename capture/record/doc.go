// Package record records runs of parallel programs as run directories of
// ParLOT traces: the `difftrace capture` runner that a launcher starts once
// per MPI rank (Main, Run), its uftrace backend, the conversion of uftrace
// recordings (ConvertUftrace, ConvertUftraceDirs), and the stack snapshots
// that keep the evidence of a hang (Snapshot). It is the capture stage of
// DiffTrace (seeds/002 §3.2, §3.2.7) done with uftrace where ParLOT used
// Pin (seeds/001 §3).
//
// A run directory holds, per rank R, the function table of R's traces
// (<prefix>.R.info, one section per image) and one compressed trace per
// thread T (<prefix>.R.T: thread 0 the main thread, then creation order),
// plus the manifest run.json (decode.Manifest) that every rank's recorder
// updates under a file lock.
//
// uftrace writes a call's entry record only once something after it is
// recorded, so the call a deadlocked thread blocks in — the evidence of a
// hang — never reaches its data. Before killing a program that is still
// running, the recorder takes a stack snapshot (eu-stack) and later
// appends, for every thread that recorded nothing since, the traced call
// it was blocked in (see Snapshot and InnermostTraced).
package record
