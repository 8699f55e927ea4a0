#!/usr/bin/env bash
# Times, as whole processes, `difftrace decode --raw FILE --format u16`
# against `zstd -d` of the same values: one trace of EVENTS events written
# by cmd/genrun, its raw values compressed by zstd at its default level.
# Both write to /dev/null; each is run RUNS times, alternating, and the
# wall-clock seconds of each run are printed sorted, with their medians.
#
#   examples/bench-decode.sh DIFFTRACE [EVENTS] [RUNS]
#
# BENCHMARKS.md ("decode --raw against zstd -d") records its output.
set -euo pipefail
DT=$(realpath "$1")
EVENTS=${2:-20000000}
RUNS=${3:-9}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

(cd "$here" && go run ./cmd/genrun -procs 1 -threads 1 -events "$EVENTS" -o "$work/run" >/dev/null)
trace=$work/run/trace.0.0
"$DT" decode --raw "$trace" --format u16 -o "$work/values.u16"
zstd -q "$work/values.u16" -o "$work/values.zst"
rm "$work/values.u16"
echo "events $EVENTS: ParLOT $(stat -c %s "$trace") bytes, zstd $(stat -c %s "$work/values.zst") bytes"

# secs CMD...: the wall-clock seconds of one run of CMD.
secs() {
	local t0 t1
	t0=$(date +%s.%N)
	"$@" >/dev/null
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc
}
dt=() zs=()
for _ in $(seq "$RUNS"); do
	dt+=("$(secs "$DT" decode --raw "$trace" --format u16)")
	zs+=("$(secs zstd -q -d -c "$work/values.zst")")
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "difftrace decode --raw: $(printf '%s\n' "${dt[@]}" | sort -n | tr '\n' ' ')(median $(median "${dt[@]}"))"
echo "zstd -d:                $(printf '%s\n' "${zs[@]}" | sort -n | tr '\n' ' ')(median $(median "${zs[@]}"))"
