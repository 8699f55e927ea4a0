// particles: an MPI C++ proxy of a short-range particle code (a molecular
// dynamics step on a cell list), written for difftrace's mutation tests. It
// is a normal program with no bug of its own: the tests take its traces as
// they are and plant the faults themselves (internal/mutation).
//
// What its traces hold is the point:
//   - C++ names: namespaces, classes, templates (md::CellList,
//     force::Pair<force::LennardJones>, integrate::Verlet<3>);
//   - a time step of a few dozen functions nested up to six calls deep;
//   - loops whose bodies are long blocks of calls in one frame: the force
//     loop visits every cell of the list with a few calls each (several
//     hundred calls in Simulation::forces), and the step itself, written out
//     in Simulation::run rather than in a function of its own, is a body of
//     over a thousand calls in the frame of run;
//   - a halo exchange with nonblocking calls and a reduction every step.
//
//   mpirun -np 4 ./particles [--steps N] [--cells C]
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

// The program's own functions stay calls, whatever the optimiser would
// inline; the standard library's templates are inlined (built at -O2), so
// a trace holds the functions of this file.
#define NOINLINE __attribute__((noinline))

namespace md {

// Vec is a 3-vector of doubles.
struct Vec {
  double x, y, z;
};

Vec operator+(const Vec& a, const Vec& b) { return Vec{a.x + b.x, a.y + b.y, a.z + b.z}; }
Vec operator*(double s, const Vec& a) { return Vec{s * a.x, s * a.y, s * a.z}; }

// Cell is one cell of the list: the particles in it.
struct Cell {
  std::vector<Vec> pos;
  std::vector<Vec> vel;
  std::vector<Vec> frc;
};

// CellList holds a rank's cells, a strip of the global box.
class CellList {
 public:
  CellList(int cells, int per_cell, int rank) : cells_(static_cast<size_t>(cells)) {
    for (int c = 0; c < cells; c++) {
      for (int p = 0; p < per_cell; p++) {
        double s = rank * 1000.0 + c * 10.0 + p;
        cells_[c].pos.push_back(Vec{std::sin(s), std::cos(s), 0.1 * p});
        cells_[c].vel.push_back(Vec{0, 0, 0});
        cells_[c].frc.push_back(Vec{0, 0, 0});
      }
    }
  }
  int size() const { return static_cast<int>(cells_.size()); }
  Cell& cell(int c) { return cells_[static_cast<size_t>(c)]; }
  NOINLINE void clear_forces(int c) {
    for (auto& f : cell(c).frc) f = Vec{0, 0, 0};
  }
  int neighbour(int c, int k) const { return (c + k + size()) % size(); }

 private:
  std::vector<Cell> cells_;
};

}  // namespace md

namespace force {

// LennardJones is the pair potential.
struct LennardJones {
  NOINLINE static double magnitude(double r2) {
    double inv = 1.0 / (r2 + 0.5);
    double i6 = inv * inv * inv;
    return 24.0 * i6 * (2.0 * i6 - 1.0) * inv;
  }
};

// Pair computes the forces between two cells with potential P.
template <typename P>
class Pair {
 public:
  NOINLINE double interact(md::Cell& a, md::Cell& b) {
    double work = 0;
    for (size_t i = 0; i < a.pos.size(); i++) {
      for (size_t j = 0; j < b.pos.size(); j++) work += accumulate(a, b, i, j);
    }
    return work;
  }

 private:
  NOINLINE double accumulate(md::Cell& a, md::Cell& b, size_t i, size_t j) {
    double dx = a.pos[i].x - b.pos[j].x, dy = a.pos[i].y - b.pos[j].y, dz = a.pos[i].z - b.pos[j].z;
    double m = P::magnitude(dx * dx + dy * dy + dz * dz);
    a.frc[i] = a.frc[i] + md::Vec{m * dx, m * dy, m * dz};
    return m;
  }
};

}  // namespace force

namespace integrate {

// Verlet advances positions and velocities in D dimensions.
template <int D>
class Verlet {
 public:
  explicit Verlet(double dt) : dt_(dt) {}
  NOINLINE void kick(md::Cell& c) {
    for (size_t i = 0; i < c.vel.size(); i++) c.vel[i] = c.vel[i] + (0.5 * dt_) * c.frc[i];
  }
  NOINLINE void drift(md::Cell& c) {
    for (size_t i = 0; i < c.pos.size(); i++) c.pos[i] = c.pos[i] + dt_ * c.vel[i];
  }

 private:
  double dt_;
};

}  // namespace integrate

namespace comm {

// Halo swaps the edge cells' particle positions with the neighbour ranks.
class Halo {
 public:
  Halo(MPI_Comm comm, int n) : comm_(comm), buf_(4 * static_cast<size_t>(n) * 3) {
    MPI_Comm_rank(comm, &rank_);
    MPI_Comm_size(comm, &size_);
    n_ = n * 3;
  }
  NOINLINE void exchange(md::CellList& cl) {
    post_receives();
    pack(cl.cell(0), 0);
    pack(cl.cell(cl.size() - 1), 1);
    post_sends();
    wait();
    unpack(cl.cell(0), 2);
    unpack(cl.cell(cl.size() - 1), 3);
  }

 private:
  int left() const { return (rank_ + size_ - 1) % size_; }
  int right() const { return (rank_ + 1) % size_; }
  NOINLINE void post_receives() {
    MPI_Irecv(&buf_[2 * n_], n_, MPI_DOUBLE, left(), 1, comm_, &req_[0]);
    MPI_Irecv(&buf_[3 * n_], n_, MPI_DOUBLE, right(), 0, comm_, &req_[1]);
  }
  NOINLINE void post_sends() {
    MPI_Isend(&buf_[0], n_, MPI_DOUBLE, left(), 0, comm_, &req_[2]);
    MPI_Isend(&buf_[static_cast<size_t>(n_)], n_, MPI_DOUBLE, right(), 1, comm_, &req_[3]);
  }
  NOINLINE void wait() { MPI_Waitall(4, req_, MPI_STATUSES_IGNORE); }
  NOINLINE void pack(md::Cell& c, int slot) {
    for (size_t i = 0; i < c.pos.size() && 3 * i + 2 < static_cast<size_t>(n_); i++) {
      buf_[slot * n_ + 3 * i] = c.pos[i].x;
      buf_[slot * n_ + 3 * i + 1] = c.pos[i].y;
      buf_[slot * n_ + 3 * i + 2] = c.pos[i].z;
    }
  }
  NOINLINE void unpack(md::Cell& c, int slot) {
    for (size_t i = 0; i < c.pos.size() && 3 * i + 2 < static_cast<size_t>(n_); i++) {
      c.pos[i].z = 0.5 * (c.pos[i].z + buf_[slot * n_ + 3 * i + 2]);
    }
  }

  MPI_Comm comm_;
  int rank_ = 0, size_ = 1, n_ = 0;
  std::vector<double> buf_;
  MPI_Request req_[4];
};

}  // namespace comm

namespace diag {

// Energy sums the kinetic energy over all ranks.
class Energy {
 public:
  explicit Energy(MPI_Comm comm) : comm_(comm) {}
  NOINLINE double kinetic(md::CellList& cl) {
    double local = 0;
    for (int c = 0; c < cl.size(); c++) local += cell_energy(cl.cell(c));
    double global = 0;
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, comm_);
    return global;
  }

 private:
  NOINLINE static double cell_energy(const md::Cell& c) {
    double e = 0;
    for (const auto& v : c.vel) e += 0.5 * (v.x * v.x + v.y * v.y + v.z * v.z);
    return e;
  }
  MPI_Comm comm_;
};

// Probes are the step's diagnostics, one function each: a step makes
// every one of them once, in the frame of the time loop, so the step's
// body there is longer than any small K.
struct Probes {
  NOINLINE static double temperature(md::Cell& c) { return c.vel[0].x * c.vel[0].x; }
  NOINLINE static double pressure(md::Cell& c) { return c.frc[0].x * c.pos[0].x; }
  NOINLINE static double momentum_x(md::Cell& c) { return c.vel[0].x; }
  NOINLINE static double momentum_y(md::Cell& c) { return c.vel[0].y; }
  NOINLINE static double momentum_z(md::Cell& c) { return c.vel[0].z; }
  NOINLINE static double virial(md::Cell& c) { return c.frc[0].y * c.pos[0].y; }
  NOINLINE static double centre_x(md::Cell& c) { return c.pos[0].x; }
  NOINLINE static double centre_y(md::Cell& c) { return c.pos[0].y; }
  NOINLINE static double centre_z(md::Cell& c) { return c.pos[0].z; }
  NOINLINE static double max_force(md::Cell& c) { return std::fabs(c.frc[0].z); }
  NOINLINE static double drift_check(md::Cell& c) { return c.pos[0].x - c.pos[0].y; }
  NOINLINE static double checksum(md::Cell& c) { return c.pos[0].x + c.vel[0].x + c.frc[0].x; }
};

}  // namespace diag

namespace driver {

// Simulation owns the cells and the step's parts.
class Simulation {
 public:
  Simulation(int cells, int per_cell, MPI_Comm comm)
      : rank_(rank_of(comm)), cl_(cells, per_cell, rank_), verlet_(0.001), halo_(comm, per_cell), energy_(comm) {}

  // run is the time loop. The step is written out here, so each step is a
  // block of calls in the frame of run, over a thousand of them.
  NOINLINE void run(int steps) {
    for (int s = 0; s < steps; s++) {
      for (int c = 0; c < cl_.size(); c++) verlet_.kick(cl_.cell(c));
      for (int c = 0; c < cl_.size(); c++) verlet_.drift(cl_.cell(c));
      halo_.exchange(cl_);
      for (int c = 0; c < cl_.size(); c++) cl_.clear_forces(c);
      forces();
      for (int c = 0; c < cl_.size(); c++) verlet_.kick(cl_.cell(c));
      double e = energy_.kinetic(cl_);
      md::Cell& c0 = cl_.cell(0);
      e += diag::Probes::temperature(c0);
      e += diag::Probes::pressure(c0);
      e += diag::Probes::momentum_x(c0);
      e += diag::Probes::momentum_y(c0);
      e += diag::Probes::momentum_z(c0);
      e += diag::Probes::virial(c0);
      e += diag::Probes::centre_x(c0);
      e += diag::Probes::centre_y(c0);
      e += diag::Probes::centre_z(c0);
      e += diag::Probes::max_force(c0);
      e += diag::Probes::drift_check(c0);
      e += diag::Probes::checksum(c0);
      report(s, e);
    }
  }

 private:
  static int rank_of(MPI_Comm comm) {
    int r;
    MPI_Comm_rank(comm, &r);
    return r;
  }
  // forces: each cell with itself and its two neighbours, a few hundred
  // calls in this frame.
  NOINLINE void forces() {
    for (int c = 0; c < cl_.size(); c++) {
      pair_.interact(cl_.cell(c), cl_.cell(c));
      pair_.interact(cl_.cell(c), cl_.cell(cl_.neighbour(c, 1)));
      pair_.interact(cl_.cell(c), cl_.cell(cl_.neighbour(c, -1)));
    }
  }
  // report keeps the step's energy; rank 0 prints the last at the end
  // (a print in some steps only would make those steps differ).
  NOINLINE void report(int s, double e) {
    last_step_ = s;
    last_energy_ = e;
  }

 public:
  void print() const {
    if (rank_ == 0) std::printf("step %d energy %.6f\n", last_step_, last_energy_);
  }

 private:

  int rank_;
  int last_step_ = 0;
  double last_energy_ = 0;
  md::CellList cl_;
  force::Pair<force::LennardJones> pair_;
  integrate::Verlet<3> verlet_;
  comm::Halo halo_;
  diag::Energy energy_;
};

}  // namespace driver

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int steps = 8, cells = 256;
  for (int i = 1; i < argc; i++) {
    if (!std::strcmp(argv[i], "--steps") && i + 1 < argc) steps = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--cells") && i + 1 < argc) cells = std::atoi(argv[++i]);
  }
  {
    driver::Simulation sim(cells, 1, MPI_COMM_WORLD);
    sim.run(steps);
    sim.print();
  }
  MPI_Finalize();
  return 0;
}
