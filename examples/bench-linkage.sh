#!/usr/bin/env bash
# Times every linkage method side by side with SciPy on the same condensed
# distance matrix: N observations, uniform random distances written by
# numpy (seed 1), clustered RUNS times by scipy.cluster.hierarchy.linkage
# and by difftrace's cluster.Linkage (BenchmarkLinkageFile). Prints each
# method's sorted seconds and the ratio of the medians (difftrace / SciPy).
#
#   examples/bench-linkage.sh [N] [RUNS]
#
# Needs Debian's python3-scipy (/usr/bin/python3). BENCHMARKS.md ("cluster")
# records its output.
set -euo pipefail
N=${1:-4096}
RUNS=${2:-5}
PY=${PYTHON:-/usr/bin/python3}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat >"$work/timelinkage.py" <<'EOF'
import os, sys, time
import numpy as np
from scipy.cluster.hierarchy import linkage
n, path = int(sys.argv[1]), sys.argv[2]
if not os.path.exists(path):
    np.random.default_rng(1).random(n * (n - 1) // 2).tofile(path)
d = np.fromfile(path, dtype="<f8")
for m in ["single", "complete", "average", "weighted", "centroid", "median", "ward"]:
    t = time.perf_counter()
    linkage(d, m)
    print(m, time.perf_counter() - t)
EOF
# Alternating, one run of each at a time, so that both see the same load.
: >"$work/scipy.txt"
: >"$work/go.txt"
(cd "$here" && go test -c -o "$work/cluster.test" ./cluster)
for _ in $(seq "$RUNS"); do
	"$PY" "$work/timelinkage.py" "$N" "$work/d.f64" >>"$work/scipy.txt"
	LINKAGE_FILE=$work/d.f64 "$work/cluster.test" -test.run '^$' -test.bench LinkageFile -test.benchtime 1x |
		awk '/^BenchmarkLinkageFile\// {split($1, a, "/"); sub(/-[0-9]+$/, "", a[2]); print a[2], $3 / 1e9}' >>"$work/go.txt"
done

median() { tr ' ' '\n' | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
echo "n = $N, $RUNS runs each, seconds"
printf '%-9s %-44s %-44s %s\n' method difftrace SciPy ratio
for m in single complete average weighted centroid median ward; do
	g=$(awk -v m="$m" '$1 == m {print $2}' "$work/go.txt" | sort -g | tr '\n' ' ')
	s=$(awk -v m="$m" '$1 == m {print $2}' "$work/scipy.txt" | sort -g | tr '\n' ' ')
	gm=$(echo "$g" | median) sm=$(echo "$s" | median)
	printf '%-9s %-44s %-44s %.2f\n' "$m" "$(printf '%.3f ' $g)" "$(printf '%.3f ' $s)" "$(echo "$gm / $sm" | bc -l)"
done
