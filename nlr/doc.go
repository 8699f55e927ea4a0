// Package nlr implements nested-loop recognition (seeds/002 §3.3.1,
// Procedure 1): it folds the repeated blocks of a filtered call sequence
// into loops, "MPI_Init, L0^4, MPI_Finalize", with one loop table shared by
// every trace of a comparison so that L0 means the same body in both runs.
package nlr
