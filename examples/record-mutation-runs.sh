#!/usr/bin/env bash
# Records the normal runs the mutation tests take as ground truth
# (internal/mutation), committed under testdata/mutation: two normal runs
# each of particles (C++), heat (Fortran), hybrid (MPI+OpenMP C) and
# twolevel (C, a two-level time loop), four ranks each. Build the programs
# first (make -C examples mutation).
#
#   examples/record-mutation-runs.sh DIFFTRACE EXAMPLES_DIR OUT_DIR
set -euo pipefail
DT=$(realpath "$1")
EX=$(realpath "$2")
OUT=$3
mkdir -p "$OUT"

. "$(dirname "$0")/record-lib.sh"

for i in 1 2; do
	record particles-$i 4 -- "$EX/particles"
	record heat-$i 4 -- "$EX/heat"
	OMP_NUM_THREADS=3 record hybrid-$i 4 -- "$EX/hybrid"
	record twolevel-$i 4 -- "$EX/twolevel"
done
du -sh "$OUT"/*
