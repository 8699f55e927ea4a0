// Package capture records runs of parallel programs as ParLOT traces: the
// first stage of DiffTrace (seeds/002 §3.2, Fig. 3.1), in the role ParLOT's
// Pin tool plays in seeds/001 §3.
//
// It holds the byte-exact ParLOT Writer (LZa3|ZE, docs/parlot-format.md),
// the capture runner that `difftrace capture` starts once per MPI rank
// (Main, Run), its uftrace backend, the conversion of uftrace recordings
// into a run directory (ConvertUftrace), and the stack snapshots that keep
// the evidence of a hang (Snapshot).
//
// A run directory holds, per rank R, the function table R's traces use
// (<prefix>.R.info) and one compressed trace per thread T
// (<prefix>.R.T, thread 0 the main thread, then creation order), plus the
// manifest run.json (decode.Manifest) that every rank's recorder updates
// under a file lock.
package capture
