// ocean: a small 1-D decomposed ocean-model proxy (MPI, C++).
// Ring of ranks; each time step exchanges halos, runs physics components
// (virtual methods), sub-cycles a barotropic solver, reduces a residual and
// writes output every few steps.
//
// Planted bugs (steps counted from 1):
//   --skip-call R S   rank R skips phys::Advection::limit_slopes in step S
//   --skip-from R S   rank R skips phys::Forcing::heat_flux from step S on
//   --extra-call R S  rank R calls phys::Diffusion::check_stability once more in step S
//   --swap R S        rank R posts its halo sends before its receives in step S
//   --swap-phys R S   rank R runs Forcing::heat_flux before Forcing::wind_stress in step S
//   --short-loop R S  rank R's barotropic sub-cycle runs one substep fewer in step S
//   --hang R S        rank R waits in MPI_Recv for a message nobody sends in step S
//   --bad-tag R S     rank R posts its left halo receive with a wrong tag in step S:
//                     it waits in MPI_Waitall forever, the others in MPI_Allreduce
#include <mpi.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#define NOINLINE __attribute__((noinline))

namespace cfg {
enum Kind { NONE, SKIP_CALL, SKIP_FROM, EXTRA_CALL, SWAP, SWAP_PHYS, SHORT_LOOP, HANG, BAD_TAG };
struct Bug {
    Kind kind = NONE;
    int rank = -1, step = -1;
};
Bug bug;
int rank = 0, size = 1;
int nsteps = 14;
const int nsub = 4;
const int nx = 256;

NOINLINE bool hit(Kind k, int step) {
    return bug.kind == k && bug.rank == rank && bug.step == step;
}
NOINLINE bool from(Kind k, int step) {
    return bug.kind == k && bug.rank == rank && step >= bug.step;
}
NOINLINE void parse(int argc, char **argv) {
    static const struct { const char *flag; Kind kind; } flags[] = {
        {"--skip-call", SKIP_CALL}, {"--skip-from", SKIP_FROM}, {"--extra-call", EXTRA_CALL},
        {"--swap", SWAP}, {"--swap-phys", SWAP_PHYS}, {"--short-loop", SHORT_LOOP}, {"--hang", HANG}, {"--bad-tag", BAD_TAG}};
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--steps") && i + 1 < argc) { nsteps = atoi(argv[++i]); continue; }
        bool ok = false;
        for (auto &f : flags)
            if (!strcmp(argv[i], f.flag) && i + 2 < argc) {
                bug.kind = f.kind; bug.rank = atoi(argv[i + 1]); bug.step = atoi(argv[i + 2]);
                i += 2; ok = true; break;
            }
        if (!ok) { fprintf(stderr, "unknown argument %s\n", argv[i]); MPI_Abort(MPI_COMM_WORLD, 2); }
    }
}
} // namespace cfg

namespace grid {
class Field {
public:
    explicit Field(int n) : v_(n + 2, 0.0), n_(n) {}
    NOINLINE double *data() { return v_.data(); }
    int n() const { return n_; }
    NOINLINE void fill(double x) { for (auto &e : v_) e = x; }
private:
    std::vector<double> v_;
    int n_;
};

template <int D> struct Stencil {
    static NOINLINE double apply(const double *in, double *out, int n) {
        double s = 0;
        for (int i = D / 2; i < n + 2 - D / 2; ++i) {
            double a = 0;
            for (int k = -D / 2; k <= D / 2; ++k) a += in[i + k] * (k == 0 ? 1.0 - 0.1 * (D - 1) : 0.1);
            out[i] = a;
            s += a;
        }
        return s;
    }
};
} // namespace grid

namespace halo {
class Exchanger {
public:
    Exchanger() {
        left_ = (cfg::rank + cfg::size - 1) % cfg::size;
        right_ = (cfg::rank + 1) % cfg::size;
    }
    NOINLINE void exchange(grid::Field &f, int step) {
        pack(f);
        if (cfg::hit(cfg::HANG, step)) wait_for_token();
        int ltag = cfg::hit(cfg::BAD_TAG, step) ? 9 : 1;
        if (cfg::hit(cfg::SWAP, step)) {
            post_sends();
            post_receives(ltag);
        } else {
            post_receives(ltag);
            post_sends();
        }
        wait_all();
        unpack(f);
    }
private:
    NOINLINE void pack(grid::Field &f) { sbuf_[0] = f.data()[1]; sbuf_[1] = f.data()[f.n()]; }
    NOINLINE void post_receives(int ltag) {
        MPI_Irecv(&rbuf_[0], 1, MPI_DOUBLE, left_, ltag, MPI_COMM_WORLD, &req_[0]);
        MPI_Irecv(&rbuf_[1], 1, MPI_DOUBLE, right_, 0, MPI_COMM_WORLD, &req_[1]);
    }
    NOINLINE void post_sends() {
        MPI_Isend(&sbuf_[0], 1, MPI_DOUBLE, left_, 0, MPI_COMM_WORLD, &req_[2]);
        MPI_Isend(&sbuf_[1], 1, MPI_DOUBLE, right_, 1, MPI_COMM_WORLD, &req_[3]);
    }
    NOINLINE void wait_all() { MPI_Waitall(4, req_, MPI_STATUSES_IGNORE); }
    NOINLINE void unpack(grid::Field &f) { f.data()[0] = rbuf_[0]; f.data()[f.n() + 1] = rbuf_[1]; }
    NOINLINE void wait_for_token() {
        double t;
        MPI_Recv(&t, 1, MPI_DOUBLE, right_, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    int left_, right_;
    double sbuf_[2], rbuf_[2];
    MPI_Request req_[4];
};
} // namespace halo

namespace phys {
struct State {
    grid::Field h{cfg::nx}, u{cfg::nx}, tmp{cfg::nx};
};

class Component {
public:
    virtual ~Component() {}
    virtual void advance(State &s, int step) = 0;
};

class Advection : public Component {
public:
    NOINLINE void advance(State &s, int step) override {
        compute_fluxes(s);
        if (!cfg::hit(cfg::SKIP_CALL, step)) limit_slopes(s);
        update(s);
    }
private:
    NOINLINE void compute_fluxes(State &s) { grid::Stencil<3>::apply(s.h.data(), s.tmp.data(), cfg::nx); }
    NOINLINE void limit_slopes(State &s) {
        double *t = s.tmp.data();
        for (int i = 1; i <= cfg::nx; ++i) t[i] = std::fmax(-1.0, std::fmin(1.0, t[i]));
    }
    NOINLINE void update(State &s) {
        for (int i = 1; i <= cfg::nx; ++i) s.h.data()[i] = 0.5 * (s.h.data()[i] + s.tmp.data()[i]);
    }
};

class Diffusion : public Component {
public:
    NOINLINE void advance(State &s, int step) override {
        grid::Stencil<5>::apply(s.u.data(), s.tmp.data(), cfg::nx);
        if (cfg::hit(cfg::EXTRA_CALL, step)) check_stability(s);
        blend(s);
    }
    NOINLINE void check_stability(State &s) {
        volatile double m = 0;
        for (int i = 1; i <= cfg::nx; ++i) m = std::fmax(m, std::fabs(s.tmp.data()[i]));
    }
private:
    NOINLINE void blend(State &s) {
        for (int i = 1; i <= cfg::nx; ++i) s.u.data()[i] = 0.9 * s.u.data()[i] + 0.1 * s.tmp.data()[i];
    }
};

class Forcing : public Component {
public:
    NOINLINE void advance(State &s, int step) override {
        if (cfg::hit(cfg::SWAP_PHYS, step)) {
            heat_flux(s);
            wind_stress(s);
        } else {
            wind_stress(s);
            if (!cfg::from(cfg::SKIP_FROM, step)) heat_flux(s);
        }
    }
private:
    NOINLINE void wind_stress(State &s) { for (int i = 1; i <= cfg::nx; ++i) s.u.data()[i] += 1e-3 * std::sin(i); }
    NOINLINE void heat_flux(State &s) { for (int i = 1; i <= cfg::nx; ++i) s.h.data()[i] += 1e-4 * std::cos(i); }
};
} // namespace phys

namespace io {
class Writer {
public:
    NOINLINE void write(phys::State &s, int step) {
        double local = checksum(s), global = 0;
        MPI_Reduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        if (cfg::rank == 0) emit(step, global);
    }
private:
    NOINLINE double checksum(phys::State &s) {
        double c = 0;
        for (int i = 1; i <= cfg::nx; ++i) c += s.h.data()[i];
        return c;
    }
    NOINLINE void emit(int step, double v) {
        FILE *f = fopen("/dev/null", "a");
        if (f) { fprintf(f, "step %d checksum %g\n", step, v); fclose(f); }
    }
};
} // namespace io

namespace solver {
class Barotropic {
public:
    NOINLINE void subcycle(phys::State &s, int step) {
        int n = cfg::nsub - (cfg::hit(cfg::SHORT_LOOP, step) ? 1 : 0);
        for (int k = 0; k < n; ++k) substep(s);
    }
private:
    NOINLINE void substep(phys::State &s) {
        grid::Stencil<3>::apply(s.u.data(), s.tmp.data(), cfg::nx);
        relax(s);
    }
    NOINLINE void relax(phys::State &s) {
        for (int i = 1; i <= cfg::nx; ++i) s.u.data()[i] = 0.75 * s.u.data()[i] + 0.25 * s.tmp.data()[i];
    }
};

class Model {
public:
    Model() {
        comps_.emplace_back(new phys::Advection);
        comps_.emplace_back(new phys::Diffusion);
        comps_.emplace_back(new phys::Forcing);
        state_.h.fill(1.0 + cfg::rank);
        state_.u.fill(0.5);
    }
    NOINLINE void run() {
        for (int s = 1; s <= cfg::nsteps; ++s) step(s);
    }
private:
    NOINLINE void step(int s) {
        halo_.exchange(state_.h, s);
        physics(s);
        baro_.subcycle(state_, s);
        double r = residual();
        if (cfg::rank == 0 && r < 0) printf("negative residual\n");
        if (s % 4 == 0) writer_.write(state_, s);
    }
    NOINLINE void physics(int s) {
        for (auto &c : comps_) c->advance(state_, s);
    }
    NOINLINE double residual() {
        double local = local_norm(), global = 0;
        MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        return std::sqrt(global);
    }
    NOINLINE double local_norm() {
        double n = 0;
        for (int i = 1; i <= cfg::nx; ++i) n += state_.h.data()[i] * state_.h.data()[i];
        return n;
    }
    phys::State state_;
    std::vector<std::unique_ptr<phys::Component>> comps_;
    halo::Exchanger halo_;
    Barotropic baro_;
    io::Writer writer_;
};
} // namespace solver

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &cfg::rank);
    MPI_Comm_size(MPI_COMM_WORLD, &cfg::size);
    cfg::parse(argc, argv);
    {
        solver::Model m;
        m.run();
    }
    MPI_Finalize();
    return 0;
}
