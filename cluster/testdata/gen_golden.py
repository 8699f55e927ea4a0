#!/usr/bin/python3
"""Golden outputs for package cluster, computed by SciPy.

Run with Debian's python3-scipy (SciPy 1.10):

    /usr/bin/python3 cluster/testdata/gen_golden.py > cluster/testdata/golden.json

For every case it records the condensed distance matrix y, and for each of the
seven linkage methods the linkage matrix Z = scipy.cluster.hierarchy.linkage(y,
method) and flat clusterings for several k.

Flat clusterings. SciPy 1.10's fcluster(Z, k, criterion="maxclust") has a
known defect in its binary search (scipy/scipy#12651, fixed by
scipy/scipy#21121): its lower bound starts at index 0 instead of -1, so the
lowest merge is never tried as a cut-off and k >= n-1 yields fewer clusters
than it could (three observations cut into k = 3 give one cluster). Package
cluster follows the corrected search. So the labels recorded here come from
SciPy's own cluster_monocrit (fcluster criterion="monocrit" with
monocrit=maxdists(Z)) at the cut-off that the corrected binary search picks;
that search is written out in maxclust_cutoff below.

Fowlkes-Mallows: for pairs of those flat clusterings the index
B = T / sqrt(P Q) is computed from its definition (Fowlkes & Mallows 1983)
with exact integers, as a cross-check.

Heights are written as JSON numbers (Python's repr, which round-trips
exactly), or the string "NaN".
"""

import json
import math
import sys

import numpy as np
import scipy
from scipy.cluster import hierarchy
from scipy.spatial.distance import pdist

METHODS = ["single", "complete", "average", "weighted", "centroid", "median", "ward"]


def jaccard_condensed(sets):
    """1 - |A∩B|/|A∪B| for every pair (0 when both sets are empty)."""
    y = []
    for i in range(len(sets)):
        for j in range(i + 1, len(sets)):
            a, b = sets[i], sets[j]
            union = len(a | b)
            y.append(0.0 if union == 0 else 1.0 - len(a & b) / union)
    return np.array(y, dtype=float)


def random_sets(rng, n, universe, p):
    return [frozenset(e for e in range(universe) if rng.random() < p) for _ in range(n)]


def count_clusters(Z, mc, cutoff):
    t = hierarchy.fcluster(Z, cutoff, criterion="monocrit", monocrit=mc)
    return len(set(t.tolist()))


def maxclust_cutoff(Z, mc, n, k):
    """Index into mc of the cut-off the corrected maxclust search picks."""
    lower, upper = -1, n - 1
    while upper - lower > 1:
        i = (lower + upper) >> 1
        if count_clusters(Z, mc, mc[i]) > k:
            lower = i
        else:
            upper = i
    return upper


def maxclust(Z, n, k):
    if k >= n:
        return list(range(1, n + 1))
    mc = hierarchy.maxdists(Z)
    cut = mc[maxclust_cutoff(Z, mc, n, k)]
    return hierarchy.fcluster(Z, cut, criterion="monocrit", monocrit=mc).tolist()


def fowlkes_mallows(a, b):
    n = len(a)
    pairs, ca, cb = {}, {}, {}
    for x, y in zip(a, b):
        pairs[(x, y)] = pairs.get((x, y), 0) + 1
        ca[x] = ca.get(x, 0) + 1
        cb[y] = cb.get(y, 0) + 1
    t = sum(v * v for v in pairs.values()) - n
    p = sum(v * v for v in ca.values()) - n
    q = sum(v * v for v in cb.values()) - n
    if p == 0 and q == 0:
        return 1.0
    if p == 0 or q == 0:
        return 0.0
    return t / math.sqrt(p * q)


def ks_for(n):
    ks = {1, 2, 3, 5, n // 2, n - 1, n}
    return sorted(k for k in ks if 1 <= k <= n)


def height(h):
    return "NaN" if math.isnan(h) else float(h)


def case(name, y, note=""):
    y = np.asarray(y, dtype=float)
    n = int(round((1 + math.sqrt(1 + 8 * len(y))) / 2))
    assert n * (n - 1) // 2 == len(y)
    out = {"name": name, "n": n, "y": [float(v) for v in y], "methods": {}}
    if note:
        out["note"] = note
    for m in METHODS:
        Z = hierarchy.linkage(y, m)
        cuts = [{"k": k, "labels": maxclust(Z, n, k)} for k in ks_for(n)]
        out["methods"][m] = {
            "Z": [[int(r[0]), int(r[1]), height(r[2]), int(r[3])] for r in Z],
            "maxclust": cuts,
        }
    return out


def main():
    rng = np.random.default_rng(20240517)
    cases = []

    # n = 1: SciPy's linkage rejects an empty condensed matrix, so there is
    # nothing to record but the expectation: no merges, one cluster.
    single = {"name": "n1", "n": 1, "y": [], "methods": {},
              "note": "SciPy raises on n = 1; package cluster returns no merges"}
    for m in METHODS:
        single["methods"][m] = {"Z": [], "maxclust": [{"k": 1, "labels": [1]}]}
    cases.append(single)

    # Tiny cases, with and without ties.
    cases.append(case("n2", [0.7]))
    cases.append(case("n2-zero", [0.0]))
    cases.append(case("n3-distinct", [0.3, 0.5, 0.4]))
    cases.append(case("n3-tied", [0.5, 0.5, 0.5]))
    cases.append(case("n3-two-tied", [1.0, 0.5, 0.5]))
    cases.append(case("n3-zero-tied", [0.0, 0.0, 1.0]))
    cases.append(case("n4-square", [1.0, 1.0, 2.0, 2.0, 1.0, 1.0]))

    # Uniform random condensed matrices (not a metric) of several sizes.
    for n in (4, 5, 8, 16, 33, 64, 100):
        cases.append(case("uniform-%d" % n, rng.random(n * (n - 1) // 2)))

    # Euclidean distances of random points: what centroid, median and ward
    # are defined for.
    for n, dim in ((6, 2), (20, 3), (50, 2), (120, 5)):
        cases.append(case("euclid-%d" % n, pdist(rng.random((n, dim)))))

    # Euclidean distances of integer grid points: exact ties in 2-D.
    for n in (12, 40):
        cases.append(case("grid-%d" % n, pdist(rng.integers(0, 4, size=(n, 2)).astype(float))))

    # Jaccard distances of small attribute sets: what difftrace feeds the
    # clustering. Values like 0, 1/3, 1/2, 2/3, 1; identical sets give 0.
    for n, universe, p in ((6, 3, 0.5), (10, 3, 0.5), (17, 4, 0.5), (30, 4, 0.6),
                           (64, 5, 0.5), (100, 3, 0.7), (200, 6, 0.5)):
        sets = random_sets(rng, n, universe, p)
        cases.append(case("jaccard-%d-u%d" % (n, universe), jaccard_condensed(sets)))

    # Small integer distances: heavy ties, including at zero.
    for n in (9, 25, 60):
        cases.append(case("ints-%d" % n, rng.integers(0, 3, size=n * (n - 1) // 2).astype(float)))

    # All distances equal.
    for n in (2, 3, 4, 7, 10, 50):
        cases.append(case("equal-%d" % n, np.full(n * (n - 1) // 2, 0.5)))
    for n in (5, 20):
        cases.append(case("zeros-%d" % n, np.zeros(n * (n - 1) // 2)))

    # Fowlkes-Mallows cross-check on pairs of recorded flat clusterings.
    fm = []
    for c in cases:
        if c["n"] < 4:
            continue
        for k in ks_for(c["n"]):
            labels = {}
            for m in METHODS:
                for cut in c["methods"][m]["maxclust"]:
                    if cut["k"] == k:
                        labels[m] = cut["labels"]
            for a, b in (("single", "ward"), ("average", "complete"), ("ward", "ward")):
                fm.append({"a": labels[a], "b": labels[b], "b_k": fowlkes_mallows(labels[a], labels[b])})

    json.dump({"generator": "cluster/testdata/gen_golden.py",
               "scipy": scipy.__version__, "numpy": np.__version__,
               "methods": METHODS, "cases": cases, "fowlkes_mallows": fm},
              sys.stdout, separators=(",", ":"), allow_nan=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
