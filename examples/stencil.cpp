// stencil: an MPI C++ proxy of a time-stepping structured-grid code, written
// for difftrace's examples. Each rank owns a strip of a 2-D grid; every time
// step exchanges halos with its neighbours, applies diffusion, advection and
// sources cell by cell, smooths with a red/black relaxation, applies the
// boundary conditions and reduces the residual over all ranks. The names
// are C++ on purpose (namespaces, classes, templates, operators), so traces
// show what demangling does, and the step is long and nested several calls
// deep (about 50 distinct functions, a few thousand calls a step), so it
// shows what folding by call structure does.
//
//   mpirun -np 8 ./stencil [--steps N] [--skip-bug RANK STEP] [--skip-send RANK STEP]
//                          [--any-order [--skip-unpack RANK STEP]]
//
// --any-order: each exchange unpacks a halo as soon as it arrives
// (MPI_Waitany), so unpack_north and unpack_south come in an order that
// changes from step to step and run to run, as receives from any source do.
//
// --skip-unpack RANK STEP (with --any-order): in step STEP, rank RANK does
// not unpack its south halo and computes on stale data: a wrong answer, no
// hang.
//
// --skip-bug RANK STEP: rank RANK skips its halo exchange in step STEP (its
// neighbours then wait for halos that never come, and RANK itself waits
// forever in the residual's MPI_Allreduce). The bug can also be given as
// STENCIL_SKIP_BUG=RANK:STEP in the environment, so that the command line of
// the normal and the faulty run is the same.
//
// --skip-send RANK STEP: in step STEP, rank RANK leaves out one send, the
// halo row it owes its north neighbour RANK-1. RANK-1 waits forever in
// MPI_Waitall; RANK itself, and every other rank, waits in the residual's
// MPI_Allreduce: the culprit waits where its victims do.
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace mesh {

// Extent is the shape of one rank's strip, halo rows included.
struct Extent {
  int nx;
  int ny;
  int cells() const { return nx * ny; }
};

// Field is a scalar field on a strip, stored by rows, with one halo row
// above and one below.
template <typename T>
class Field {
 public:
  explicit Field(Extent e) : ext_(e), data_(static_cast<size_t>(e.cells()), T(0)) {}
  T& at(int i, int j) { return data_[static_cast<size_t>(i) * ext_.nx + j]; }
  const T& at(int i, int j) const { return data_[static_cast<size_t>(i) * ext_.nx + j]; }
  T* row(int i) { return &data_[static_cast<size_t>(i) * ext_.nx]; }
  const Extent& extent() const { return ext_; }
  void fill(T v) {
    for (auto& x : data_) x = v;
  }
  void swap(Field& o) { data_.swap(o.data_); }
  Field& operator+=(const Field& o) {
    for (size_t k = 0; k < data_.size(); k++) data_[k] += o.data_[k];
    return *this;
  }

 private:
  Extent ext_;
  std::vector<T> data_;
};

// Grid is one rank's part of the global grid: its extent and neighbours.
class Grid {
 public:
  Grid(int nx, int ny, MPI_Comm comm) : comm_(comm) {
    MPI_Comm_rank(comm, &rank_);
    MPI_Comm_size(comm, &size_);
    ext_ = Extent{nx, ny + 2};
  }
  Extent extent() const { return ext_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  int north() const { return rank_ > 0 ? rank_ - 1 : MPI_PROC_NULL; }
  int south() const { return rank_ < size_ - 1 ? rank_ + 1 : MPI_PROC_NULL; }
  MPI_Comm comm() const { return comm_; }

 private:
  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
  Extent ext_{0, 0};
};

}  // namespace mesh

namespace halo {

// Exchanger swaps the first and last interior rows of a field with the
// neighbours' halo rows, with nonblocking point-to-point calls.
class Exchanger {
 public:
  explicit Exchanger(const mesh::Grid& g)
      : grid_(g), sendN_(g.extent().nx), sendS_(g.extent().nx), recvN_(g.extent().nx), recvS_(g.extent().nx) {}

  void exchange(mesh::Field<double>& f) {
    post_receives();
    pack_north(f);
    pack_south(f);
    post_sends();
    if (any_order_) {
      // Unpack each halo as it arrives: the order changes from step to
      // step and from run to run.
      for (int k = 0; k < 2; k++) {
        int which;
        MPI_Waitany(2, req_, &which, MPI_STATUS_IGNORE);
        if (skip_south_unpack && which == 1) {
          skip_south_unpack = false;  // the planted --skip-unpack bug
          continue;
        }
        if (which == 0) unpack_north(f);
        else if (which == 1) unpack_south(f);
      }
      MPI_Waitall(2, req_ + 2, MPI_STATUSES_IGNORE);
      return;
    }
    wait_all();
    unpack_north(f);
    unpack_south(f);
  }

 private:
  void post_receives() {
    MPI_Irecv(recvN_.data(), grid_.extent().nx, MPI_DOUBLE, grid_.north(), 1, grid_.comm(), &req_[0]);
    MPI_Irecv(recvS_.data(), grid_.extent().nx, MPI_DOUBLE, grid_.south(), 2, grid_.comm(), &req_[1]);
  }
  void pack_north(mesh::Field<double>& f) { std::memcpy(sendN_.data(), f.row(1), sendN_.size() * sizeof(double)); }
  void pack_south(mesh::Field<double>& f) {
    std::memcpy(sendS_.data(), f.row(f.extent().ny - 2), sendS_.size() * sizeof(double));
  }
  void post_sends() {
    if (skip_north_) {
      req_[2] = MPI_REQUEST_NULL;  // the planted --skip-send bug
      skip_north_ = false;
    } else {
      MPI_Isend(sendN_.data(), grid_.extent().nx, MPI_DOUBLE, grid_.north(), 2, grid_.comm(), &req_[2]);
    }
    MPI_Isend(sendS_.data(), grid_.extent().nx, MPI_DOUBLE, grid_.south(), 1, grid_.comm(), &req_[3]);
  }
  void wait_all() { MPI_Waitall(4, req_, MPI_STATUSES_IGNORE); }
  void unpack_north(mesh::Field<double>& f) {
    if (grid_.north() != MPI_PROC_NULL) std::memcpy(f.row(0), recvN_.data(), recvN_.size() * sizeof(double));
  }
  void unpack_south(mesh::Field<double>& f) {
    if (grid_.south() != MPI_PROC_NULL)
      std::memcpy(f.row(f.extent().ny - 1), recvS_.data(), recvS_.size() * sizeof(double));
  }

  const mesh::Grid& grid_;
  std::vector<double> sendN_, sendS_, recvN_, recvS_;
  MPI_Request req_[4];
  bool skip_north_ = false;
  bool any_order_ = false;

 public:
  // unpack_in_arrival_order makes every exchange unpack each halo as it
  // arrives (MPI_Waitany) instead of after both (--any-order).
  void unpack_in_arrival_order() { any_order_ = true; }
  // skip_south_unpack makes the next exchange in arrival order leave the
  // south halo as it was: stale data, no hang. (A field, not a function,
  // so that the bug adds no call of its own to the trace.)
  bool skip_south_unpack = false;
  // skip_next_north_send makes the next exchange leave out its send to
  // the north neighbour, which then waits for it forever.
  void skip_next_north_send() { skip_north_ = true; }
};

}  // namespace halo

namespace physics {

namespace stencil {

template <typename T>
T laplacian(const mesh::Field<T>& u, int i, int j) {
  return u.at(i - 1, j) + u.at(i + 1, j) + u.at(i, j - 1) + u.at(i, j + 1) - T(4) * u.at(i, j);
}

template <typename T>
T upwind(T a, T left, T centre, T right) {
  return a > T(0) ? a * (centre - left) : a * (right - centre);
}

template <typename T>
T minmod(T a, T b) {
  if (a * b <= T(0)) return T(0);
  return std::fabs(a) < std::fabs(b) ? a : b;
}

}  // namespace stencil

// Diffusion adds nu * laplacian(u) to du, cell by cell.
template <typename T>
class Diffusion {
 public:
  explicit Diffusion(T nu) : nu_(nu) {}
  void apply(const mesh::Field<T>& u, mesh::Field<T>& du) {
    for (int i = 1; i < u.extent().ny - 1; i++) row(u, du, i);
  }

 private:
  void row(const mesh::Field<T>& u, mesh::Field<T>& du, int i) {
    for (int j = 1; j < u.extent().nx - 1; j++) cell(u, du, i, j);
  }
  void cell(const mesh::Field<T>& u, mesh::Field<T>& du, int i, int j) {
    du.at(i, j) += nu_ * stencil::laplacian(u, i, j);
  }
  T nu_;
};

// Advection moves u with a constant velocity, with a limited upwind scheme.
class Advection {
 public:
  Advection(double ax, double ay) : ax_(ax), ay_(ay) {}
  void apply(const mesh::Field<double>& u, mesh::Field<double>& du) {
    for (int i = 1; i < u.extent().ny - 1; i++)
      for (int j = 1; j < u.extent().nx - 1; j++) du.at(i, j) -= flux_x(u, i, j) + flux_y(u, i, j);
  }

 private:
  double flux_x(const mesh::Field<double>& u, int i, int j) {
    double f = stencil::upwind(ax_, u.at(i, j - 1), u.at(i, j), u.at(i, j + 1));
    return limit(f, u.at(i, j + 1) - u.at(i, j));
  }
  double flux_y(const mesh::Field<double>& u, int i, int j) {
    return stencil::upwind(ay_, u.at(i - 1, j), u.at(i, j), u.at(i + 1, j));
  }
  double limit(double f, double slope) { return f + 0.5 * stencil::minmod(f, slope); }
  double ax_, ay_;
};

// Sources heats a spot in the middle of the global grid and cools everywhere.
class Sources {
 public:
  explicit Sources(const mesh::Grid& g) : grid_(g) {}
  void apply(mesh::Field<double>& du, double t) {
    heating(du, t);
    cooling(du);
  }

 private:
  void heating(mesh::Field<double>& du, double t) {
    if (grid_.rank() == grid_.size() / 2) du.at(du.extent().ny / 2, du.extent().nx / 2) += std::sin(t) + 1.0;
  }
  void cooling(mesh::Field<double>& du) {
    for (int i = 1; i < du.extent().ny - 1; i++) du.row(i)[0] *= 0.99;
  }
  const mesh::Grid& grid_;
};

}  // namespace physics

namespace solver {

// Smoother relaxes u towards the solution of the implicit step with N
// red/black Gauss-Seidel sweeps.
template <typename T, int N>
class Smoother {
 public:
  void relax(mesh::Field<T>& u, const mesh::Field<T>& rhs) {
    for (int s = 0; s < N; s++) {
      sweep(u, rhs, 0);
      sweep(u, rhs, 1);
    }
  }
  T residual(const mesh::Field<T>& u, const mesh::Field<T>& rhs) {
    T r = 0;
    for (int i = 1; i < u.extent().ny - 1; i++) r += row_residual(u, rhs, i);
    return r;
  }

 private:
  void sweep(mesh::Field<T>& u, const mesh::Field<T>& rhs, int colour) {
    for (int i = 1; i < u.extent().ny - 1; i++) update_row(u, rhs, i, colour);
  }
  void update_row(mesh::Field<T>& u, const mesh::Field<T>& rhs, int i, int colour) {
    for (int j = 1 + (i + colour) % 2; j < u.extent().nx - 1; j += 2) u.at(i, j) = 0.2 * (rhs.at(i, j) + u.at(i, j));
  }
  T row_residual(const mesh::Field<T>& u, const mesh::Field<T>& rhs, int i) {
    T r = 0;
    for (int j = 1; j < u.extent().nx - 1; j++) r += std::fabs(rhs.at(i, j) - u.at(i, j));
    return r;
  }
};

}  // namespace solver

namespace boundary {

void west(mesh::Field<double>& u) {
  for (int i = 0; i < u.extent().ny; i++) u.at(i, 0) = 0.0;
}
void east(mesh::Field<double>& u) {
  for (int i = 0; i < u.extent().ny; i++) u.at(i, u.extent().nx - 1) = 0.0;
}
void north(mesh::Field<double>& u, const mesh::Grid& g) {
  if (g.north() == MPI_PROC_NULL)
    for (int j = 0; j < u.extent().nx; j++) u.at(0, j) = 0.0;
}
void south(mesh::Field<double>& u, const mesh::Grid& g) {
  if (g.south() == MPI_PROC_NULL)
    for (int j = 0; j < u.extent().nx; j++) u.at(u.extent().ny - 1, j) = 0.0;
}
void apply(mesh::Field<double>& u, const mesh::Grid& g) {
  west(u);
  east(u);
  north(u, g);
  south(u, g);
}

}  // namespace boundary

namespace diag {

// Monitor reduces the residual and the energy over all ranks each step and
// prints them on rank 0 every few steps.
class Monitor {
 public:
  explicit Monitor(const mesh::Grid& g) : grid_(g) {}
  double global_residual(double local) {
    double g = 0;
    MPI_Allreduce(&local, &g, 1, MPI_DOUBLE, MPI_SUM, grid_.comm());
    return g;
  }
  double energy(const mesh::Field<double>& u) {
    double e = 0;
    for (int i = 1; i < u.extent().ny - 1; i++)
      for (int j = 1; j < u.extent().nx - 1; j++) e += u.at(i, j) * u.at(i, j);
    double g = 0;
    MPI_Reduce(&e, &g, 1, MPI_DOUBLE, MPI_SUM, 0, grid_.comm());
    return g;
  }
  void report(int step, double res, double e) {
    if (grid_.rank() == 0 && step % 5 == 0) std::printf("step %3d  residual %.6e  energy %.6e\n", step, res, e);
  }

 private:
  const mesh::Grid& grid_;
};

}  // namespace diag

namespace driver {

// Bug is the planted fault: the rank that skips the halo exchange, and the
// step in which it does (-1: none).
struct Bug {
  int rank = -1;
  int step = -1;
  int send_rank = -1;  // --skip-send: the rank that leaves out one send
  int send_step = -1;
  bool any_order = false;  // --any-order
  int unpack_rank = -1;    // --skip-unpack: the rank that leaves a halo stale
  int unpack_step = -1;
};

class Simulation {
 public:
  Simulation(const mesh::Grid& g, Bug bug)
      : grid_(g),
        u_(g.extent()),
        du_(g.extent()),
        rhs_(g.extent()),
        halo_(g),
        diffusion_(0.1),
        advection_(0.3, -0.2),
        sources_(g),
        monitor_(g),
        bug_(bug) {
    u_.fill(1.0);
    if (bug.any_order) halo_.unpack_in_arrival_order();
  }

  void run(int steps) {
    for (int s = 0; s < steps; s++) step(s);
  }

 private:
  void step(int s) {
    exchange(s);
    tendencies(s);
    implicit_solve();
    boundary::apply(u_, grid_);
    diagnose(s);
  }
  void exchange(int s) {
    if (grid_.rank() == bug_.rank && s == bug_.step) return;  // the planted bug
    if (grid_.rank() == bug_.send_rank && s == bug_.send_step) halo_.skip_next_north_send();
    if (grid_.rank() == bug_.unpack_rank && s == bug_.unpack_step) halo_.skip_south_unpack = true;
    halo_.exchange(u_);
  }
  void tendencies(int s) {
    du_.fill(0.0);
    diffusion_.apply(u_, du_);
    advection_.apply(u_, du_);
    sources_.apply(du_, 0.1 * s);
  }
  void implicit_solve() {
    rhs_.fill(0.0);
    rhs_ += u_;
    rhs_ += du_;
    smoother_.relax(u_, rhs_);
  }
  void diagnose(int s) {
    double r = monitor_.global_residual(smoother_.residual(u_, rhs_));
    double e = monitor_.energy(u_);
    monitor_.report(s, r, e);
  }

  const mesh::Grid& grid_;
  mesh::Field<double> u_, du_, rhs_;
  halo::Exchanger halo_;
  physics::Diffusion<double> diffusion_;
  physics::Advection advection_;
  physics::Sources sources_;
  solver::Smoother<double, 2> smoother_;
  diag::Monitor monitor_;
  Bug bug_;
};

Bug parse_bug(int argc, char** argv) {
  Bug b;
  for (int i = 1; i < argc; i++)
    if (std::strcmp(argv[i], "--any-order") == 0) b.any_order = true;
  for (int i = 1; i + 2 < argc; i++)
    if (std::strcmp(argv[i], "--skip-unpack") == 0) {
      b.unpack_rank = std::atoi(argv[i + 1]);
      b.unpack_step = std::atoi(argv[i + 2]);
    } else if (std::strcmp(argv[i], "--skip-bug") == 0) {
      b.rank = std::atoi(argv[i + 1]);
      b.step = std::atoi(argv[i + 2]);
    } else if (std::strcmp(argv[i], "--skip-send") == 0) {
      b.send_rank = std::atoi(argv[i + 1]);
      b.send_step = std::atoi(argv[i + 2]);
    }
  if (const char* env = std::getenv("STENCIL_SKIP_BUG")) {
    std::string s(env);
    size_t colon = s.find(':');
    if (colon != std::string::npos) {
      b.rank = std::atoi(s.substr(0, colon).c_str());
      b.step = std::atoi(s.substr(colon + 1).c_str());
    }
  }
  return b;
}

int parse_steps(int argc, char** argv) {
  for (int i = 1; i + 1 < argc; i++)
    if (std::strcmp(argv[i], "--steps") == 0) return std::atoi(argv[i + 1]);
  return 12;
}

}  // namespace driver

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  {
    mesh::Grid grid(12, 8, MPI_COMM_WORLD);
    driver::Simulation sim(grid, driver::parse_bug(argc, argv));
    sim.run(driver::parse_steps(argc, argv));
  }
  MPI_Finalize();
  return 0;
}
