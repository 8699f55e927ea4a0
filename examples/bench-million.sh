#!/bin/sh
# bench-million.sh DIR P S: generate a normal and a faulty run of P
# processes × 4 threads (10,000 events a thread) in DIR/nS and DIR/fS with
# cmd/genrun, and summarise each with two launcher processes, timing each
# (BENCHMARKS.md, issue 28). Build first: make build && go build -o bin/ ./cmd/genrun
# Then: cd DIR && /usr/bin/time -v difftrace rank nS.sum fS.sum --format json --no-session -o rS.json
set -e
[ $# -eq 3 ] || { echo "usage: $0 DIR PROCESSES SUFFIX (e.g. /tmp/big 250000 6)" >&2; exit 2; }
B=$(cd "$(dirname "$0")/.." && pwd)/bin
mkdir -p "$1"
cd "$1"
P=$2
S=$3
for kind in n f; do
	d=$kind$S
	if [ ! -f "$d/run.json" ]; then
		fl=
		[ $kind = f ] && fl=-faulty
		/usr/bin/time -f "genrun $d: %e s %U user %S sys %M KB" "$B/genrun" -procs "$P" -threads 4 -events 10000 $fl -o "$d"
	fi
	rm -rf "$d.sum"
	for i in 0 1; do
		OMPI_COMM_WORLD_RANK=$i OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_SIZE=2 \
			/usr/bin/time -f "summarize $d part $i: %e s %U user %S sys %M KB" "$B/difftrace" summarize "$d" -o "$d.sum" &
	done
	wait
done
