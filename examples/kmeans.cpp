// kmeans: k-means clustering of points spread over the MPI ranks, in C++ —
// a program of our own to record with `difftrace capture --only mpi`. Each
// rank owns a share of the points (a deterministic pseudo-random cloud
// around K true centres); every iteration assigns each point to its nearest
// centroid, sums the points of each cluster locally, and combines the sums
// and counts of all ranks with MPI_Allreduce; a second MPI_Allreduce finds
// how far the centroids moved. Rank 0 prints the centroids at the end.
//
//   mpirun -np 4 ./kmeans [--iters N] [--points P] [--stop-bug R I]
//
// --stop-bug R I plants a bug: rank R takes its centroids for converged
// after iteration I (counted from 0) and leaves the loop, while the other
// ranks wait for it in the next iteration's MPI_Allreduce: the run hangs
// (record it with --timeout).
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace geo {

struct Point {
    double x, y;
};

inline double dist2(const Point& a, const Point& b) {
    const double dx = a.x - b.x, dy = a.y - b.y;
    return dx * dx + dy * dy;
}

}  // namespace geo

namespace km {

constexpr int K = 4;

// Random is a small linear congruential generator: the same points on
// every run and rank count.
class Random {
public:
    explicit Random(unsigned long seed) : state_(seed * 6364136223846793005UL + 1442695040888963407UL) {}
    double uniform() {
        state_ = state_ * 6364136223846793005UL + 1442695040888963407UL;
        return static_cast<double>(state_ >> 11) / 9007199254740992.0;
    }

private:
    unsigned long state_;
};

// Dataset holds a rank's share of the points.
class Dataset {
public:
    Dataset(int rank, int n) {
        Random rng(static_cast<unsigned long>(rank) + 1);
        points_.reserve(n);
        for (int i = 0; i < n; i++) {
            const int c = i % K;
            points_.push_back({10.0 * c + rng.uniform() * 4.0, 5.0 * (c % 2) + rng.uniform() * 4.0});
        }
    }
    const std::vector<geo::Point>& points() const { return points_; }

private:
    std::vector<geo::Point> points_;
};

// Model holds the centroids every rank agrees on.
class Model {
public:
    explicit Model(const Dataset& data) {
        // The first K points of rank 0 would differ by rank: start from
        // fixed centroids instead.
        for (int c = 0; c < K; c++) centroids_.push_back({2.0 + 9.0 * c, 2.5});
        (void)data;
    }

    // step runs one iteration and returns how far the centroids moved.
    double step(const Dataset& data) {
        std::vector<double> sums(3 * K, 0.0);  // x, y, count per cluster
        accumulate(data, sums);
        std::vector<double> total(3 * K, 0.0);
        MPI_Allreduce(sums.data(), total.data(), 3 * K, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        double moved = 0;
        for (int c = 0; c < K; c++) {
            if (total[3 * c + 2] == 0) continue;
            const geo::Point next{total[3 * c] / total[3 * c + 2], total[3 * c + 1] / total[3 * c + 2]};
            moved = std::fmax(moved, std::sqrt(geo::dist2(next, centroids_[c])));
            centroids_[c] = next;
        }
        double most = 0;
        MPI_Allreduce(&moved, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        return most;
    }

    void print() const {
        for (int c = 0; c < K; c++) std::printf("centroid %d: %.3f %.3f\n", c, centroids_[c].x, centroids_[c].y);
    }

private:
    int nearest(const geo::Point& p) const {
        int best = 0;
        for (int c = 1; c < K; c++)
            if (geo::dist2(p, centroids_[c]) < geo::dist2(p, centroids_[best])) best = c;
        return best;
    }

    void accumulate(const Dataset& data, std::vector<double>& sums) const {
        for (const geo::Point& p : data.points()) {
            const int c = nearest(p);
            sums[3 * c] += p.x;
            sums[3 * c + 1] += p.y;
            sums[3 * c + 2] += 1;
        }
    }

    std::vector<geo::Point> centroids_;
};

}  // namespace km

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iters = 20, points = 2000, stopRank = -1, stopIter = -1;
    for (int i = 1; i < argc; i++) {
        if (!std::strcmp(argv[i], "--iters") && i + 1 < argc) {
            iters = std::atoi(argv[++i]);
        } else if (!std::strcmp(argv[i], "--points") && i + 1 < argc) {
            points = std::atoi(argv[++i]);
        } else if (!std::strcmp(argv[i], "--stop-bug") && i + 2 < argc) {
            stopRank = std::atoi(argv[++i]);
            stopIter = std::atoi(argv[++i]);
        } else {
            if (rank == 0) std::fprintf(stderr, "usage: kmeans [--iters N] [--points P] [--stop-bug RANK ITER]\n");
            MPI_Finalize();
            return 2;
        }
    }
    km::Dataset data(rank, points);
    km::Model model(data);
    for (int it = 0; it < iters; it++) {
        model.step(data);
        if (rank == stopRank && it == stopIter) break;  // the bug: converged too early
    }
    if (rank == 0) model.print();
    MPI_Finalize();
    return 0;
}
