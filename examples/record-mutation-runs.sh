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

# Open MPI as root, oversubscribing a small machine.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1

# record NAME NP -- PROGRAM [ARGS]: then wait until every rank's recorder
# has written its traces.
record() {
	local name=$1 np=$2
	shift 2
	echo "recording $name ($np ranks)"
	mpirun -np "$np" "$DT" capture --force -o "$OUT/$name" "$@" >"$OUT/.$name.log" 2>&1
	for _ in $(seq 600); do
		local ranks ended
		ranks=$(grep -c '"rank":' "$OUT/$name/run.json" || true)
		ended=$(grep -c '"end": "0001-01-01T00:00:00Z"' "$OUT/$name/run.json" || true)
		if [ "$ranks" -eq "$np" ] && [ "$ended" -eq 0 ]; then
			rm -f "$OUT/$name/.run.lock" "$OUT/$name/.run.active" "$OUT/.$name.log"
			return
		fi
		sleep 0.1
	done
	echo "$name: the run did not complete; mpirun said:" >&2
	cat "$OUT/.$name.log" >&2
	exit 1
}

for i in 1 2; do
	record particles-$i 4 -- "$EX/particles"
	record heat-$i 4 -- "$EX/heat"
	OMP_NUM_THREADS=3 record hybrid-$i 4 -- "$EX/hybrid"
	record twolevel-$i 4 -- "$EX/twolevel"
done
du -sh "$OUT"/*
