/* mdomp: a small molecular-dynamics proxy (MPI + OpenMP, C).
 * Each rank owns a slab of particles; every time step it exchanges ghost
 * particles with its ring neighbours, computes forces in an OpenMP parallel
 * region (static schedule, a critical section for the virial, a reduction for
 * the potential energy), integrates, and applies a thermostat that needs an
 * MPI_Allreduce of the kinetic energy. The neighbour list is rebuilt every
 * 4 steps.
 *
 * Planted bugs (steps counted from 1, T = OpenMP thread number):
 *   --skip-crit R T S    thread T of rank R updates the virial outside the critical section in step S
 *   --skip-call R T S    thread T of rank R skips apply_cutoff for its third block in step S
 *   --extra-call R T S   thread T of rank R calls recheck_bounds after its first block in step S
 * (with 2 threads, a static schedule gives each thread 4 of the 8 blocks)
 *   --skip-from R S      rank R stops calling rescale_velocities from step S on
 *   --swap R S           rank R integrates before exchanging ghosts in step S
 */
#include <mpi.h>
#include <omp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))
#define NP 64          /* particles per rank */
#define NBLK 8         /* force blocks per step */
#define NSTEPS 12

enum { NONE, SKIP_CRIT, SKIP_CALL, EXTRA_CALL, SKIP_FROM, SWAP };
static int bug_kind = NONE, bug_rank = -1, bug_thread = -1, bug_step = -1;
static int rank, nprocs;
static double x[NP + 2], v[NP], f[NP];
static double virial;

static NOINLINE int bug_here(int kind, int step, int tid) {
    return bug_kind == kind && bug_rank == rank && bug_step == step && bug_thread == tid;
}

static NOINLINE void parse(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        int k = NONE, three = 1;
        if (!strcmp(argv[i], "--skip-crit")) k = SKIP_CRIT;
        else if (!strcmp(argv[i], "--skip-call")) k = SKIP_CALL;
        else if (!strcmp(argv[i], "--extra-call")) k = EXTRA_CALL;
        else if (!strcmp(argv[i], "--skip-from")) { k = SKIP_FROM; three = 0; }
        else if (!strcmp(argv[i], "--swap")) { k = SWAP; three = 0; }
        else { fprintf(stderr, "unknown argument %s\n", argv[i]); MPI_Abort(MPI_COMM_WORLD, 2); }
        bug_kind = k;
        bug_rank = atoi(argv[++i]);
        if (three) bug_thread = atoi(argv[++i]);
        bug_step = atoi(argv[++i]);
    }
}

static NOINLINE void exchange_ghosts(void) {
    int left = (rank + nprocs - 1) % nprocs, right = (rank + 1) % nprocs;
    MPI_Sendrecv(&x[NP], 1, MPI_DOUBLE, right, 5, &x[0], 1, MPI_DOUBLE, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&x[1], 1, MPI_DOUBLE, left, 6, &x[NP + 1], 1, MPI_DOUBLE, right, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static NOINLINE void build_neighbor_list(void) {
    volatile double s = 0;
    for (int i = 0; i < NP; i++) s += x[i + 1];
}

static NOINLINE double pair_force(int i) {
    double d1 = x[i + 1] - x[i], d2 = x[i + 2] - x[i + 1];
    return 1.0 / (1.0 + d1 * d1) - 1.0 / (1.0 + d2 * d2);
}

static NOINLINE void apply_cutoff(int lo, int hi) {
    for (int i = lo; i < hi; i++) if (fabs(f[i]) > 10.0) f[i] = copysign(10.0, f[i]);
}

static NOINLINE void recheck_bounds(int lo, int hi) {
    for (int i = lo; i < hi; i++) if (x[i + 1] != x[i + 1]) abort();
}

static NOINLINE double block_forces(int blk, double *w) {
    int lo = blk * (NP / NBLK), hi = lo + NP / NBLK;
    double e = 0;
    for (int i = lo; i < hi; i++) {
        f[i] = pair_force(i);
        e += 0.5 * f[i] * f[i];
        *w += f[i] * x[i + 1];
    }
    return e;
}

static NOINLINE double compute_forces(int step) {
    double epot = 0;
#pragma omp parallel reduction(+ : epot)
    {
        double w = 0;
        int tid = omp_get_thread_num();
#pragma omp for schedule(static)
        for (int blk = 0; blk < NBLK; blk++) {
            epot += block_forces(blk, &w);
            int lo = blk * (NP / NBLK), hi = lo + NP / NBLK;
            /* the bugs hit one block: the thread's third (skip) or first (extra) */
            if (!(bug_here(SKIP_CALL, step, tid) && blk % (NBLK / 2) == 2)) apply_cutoff(lo, hi);
            if (bug_here(EXTRA_CALL, step, tid) && blk % (NBLK / 2) == 0) recheck_bounds(lo, hi);
        }
        if (bug_here(SKIP_CRIT, step, tid)) {
            virial += w;
        } else {
#pragma omp critical(virial)
            virial += w;
        }
    }
    return epot;
}

static NOINLINE void integrate(void) {
#pragma omp parallel for schedule(static)
    for (int i = 0; i < NP; i++) {
        v[i] += 0.01 * f[i];
        x[i + 1] += 0.01 * v[i];
    }
}

static NOINLINE double kinetic_energy(void) {
    double k = 0;
    for (int i = 0; i < NP; i++) k += 0.5 * v[i] * v[i];
    return k;
}

static NOINLINE void rescale_velocities(double factor) {
    for (int i = 0; i < NP; i++) v[i] *= factor;
}

static NOINLINE void thermostat(int step) {
    double k = kinetic_energy(), kg = 0;
    MPI_Allreduce(&k, &kg, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double target = 0.5 * NP * nprocs;
    if (!(bug_kind == SKIP_FROM && bug_rank == rank && step >= bug_step))
        rescale_velocities(kg > 0 ? sqrt(target / kg) : 1.0);
}

static NOINLINE void time_step(int step) {
    if (step % 4 == 1) build_neighbor_list();
    if (bug_kind == SWAP && bug_rank == rank && bug_step == step) {
        integrate();
        exchange_ghosts();
    } else {
        exchange_ghosts();
        integrate();
    }
    double e = compute_forces(step);
    thermostat(step);
    if (rank == 0 && step == NSTEPS) printf("epot %.6f virial %.6f\n", e, virial);
}

int main(int argc, char **argv) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    parse(argc, argv);
    for (int i = 0; i < NP + 2; i++) x[i] = rank * NP + i;
    for (int i = 0; i < NP; i++) v[i] = 0.1 * ((i * 7 + rank) % 5);
    for (int s = 1; s <= NSTEPS; s++) time_step(s);
    MPI_Finalize();
    return 0;
}
