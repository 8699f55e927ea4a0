#!/usr/bin/env bash
# Builds the programs of difftrace's one-run analysis (rod, depot, bar,
# crew) and records their runs into OUT_DIR (testdata/outliers): each
# program normal, and with its planted bugs, one trace standing apart from
# its peers in each faulty run.
#
#   examples/record-outliers.sh DIFFTRACE OUT_DIR
#
# Needs Open MPI's mpicc, mpicxx and mpif90 and uftrace.
set -euo pipefail
DT=$(realpath "$1")
OUT=$2
EX=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
BIN=$(mktemp -d)
trap 'rm -rf "$BIN"' EXIT

# As examples/Makefile builds its programs: without inlining, so every
# function of the source is a call, and with -pg, so uftrace records the
# small ones through mcount.
FLAGS="-O2 -g -pg -fno-inline -fno-optimize-sibling-calls -fno-omit-frame-pointer"
mpicc $FLAGS -Wall -o "$BIN/rod" "$EX/rod.c"
mpicxx $FLAGS -Wall -Wextra -DOMPI_SKIP_MPICXX=1 -o "$BIN/depot" "$EX/depot.cpp"
mpif90 $FLAGS -Wall -J "$BIN" -o "$BIN/bar" "$EX/bar.f90"
gcc $FLAGS -Wall -fopenmp -o "$BIN/crew" "$EX/crew.c"

. "$EX/record-lib.sh"

record rod-normal 8 -- "$BIN/rod"
record rod-skipsmooth 8 -- "$BIN/rod" --skip-smooth 3 5
record rod-shortsweep 8 -- "$BIN/rod" --short-sweep 5 7
record depot-normal 6 -- "$BIN/depot"
record depot-skipcheck 6 -- "$BIN/depot" --skip-check 3 4
record depot-redo 6 -- "$BIN/depot" --redo 2 3
record bar-normal 6 -- "$BIN/bar"
record bar-short 6 -- "$BIN/bar" --short 2 6
record bar-skipnorm 6 -- "$BIN/bar" --skip-norm 4 3
# crew is one process: capture alone, as the pthreads example is.
record crew-normal 1 -- "$BIN/crew"
record crew-skipcrit 1 -- "$BIN/crew" --skip-critical 2 5
record crew-short 1 -- "$BIN/crew" --short 3
du -sh "$OUT"
