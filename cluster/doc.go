// Package cluster builds the dendrograms difftrace compares (seeds/002
// §3.2.6 and §3.3.3): agglomerative hierarchical clustering of a condensed
// distance matrix with the linkages single, complete, average, weighted,
// centroid, median and ward; flat cuts into at most k clusters; and the
// Fowlkes–Mallows index B_k of two flat clusterings, the B-score that orders
// the ranking table.
//
// The seeds used SciPy, so Linkage reproduces scipy.cluster.hierarchy.linkage
// merge for merge, ties included: it runs the algorithm SciPy runs for each
// method (a minimum spanning tree for single; the nearest-neighbour chain for
// complete, average, weighted and ward; the generic algorithm with a heap of
// nearest-neighbour candidates for centroid and median), scans candidates in
// the same order, breaks ties the same way and evaluates the same
// Lance–Williams updates in the same floating-point order. Like SciPy it
// applies the centroid, median and ward updates to whatever distances it is
// given, Euclidean or not. Golden outputs computed by SciPy are in testdata/.
//
// Distances between observations i < j of n are given in the condensed form
// of SciPy's pdist: the upper triangle row by row, n(n−1)/2 values, the pair
// (i, j) at index n·i − i(i+1)/2 + j − i − 1.
package cluster
