# Sourced by record-runs.sh and record-mutation-runs.sh, with DT (difftrace),
# OUT (where the runs go) set: Open MPI's settings for this machine and
# record, which captures one run and waits for its recorders.

# Open MPI as root, oversubscribing a small machine.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1

# record NAME NP [capture flags] -- PROGRAM [ARGS]: a run whose program may
# fail (the deadlocks do, by design); then wait until every rank's recorder
# has written its traces (a killed job's recorders finish after mpirun).
record() {
	local name=$1 np=$2
	shift 2
	echo "recording $name ($np ranks)"
	mpirun -np "$np" "$DT" capture --force -o "$OUT/$name" "$@" >"$OUT/.$name.log" 2>&1 || true
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
