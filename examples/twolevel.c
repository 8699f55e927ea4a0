/* twolevel: an MPI C proxy of an implicit time-stepping code, written for
 * difftrace's mutation tests: a two-level time loop, outer time steps and
 * inside each a fixed number of conjugate-gradient-like solver iterations.
 * It is a normal program with no bug of its own: the tests take its traces
 * as they are and plant the faults themselves (internal/mutation).
 *
 * The solver loop is written out in main's step, so a step is a block of
 * calls in main's frame: assemble, then the solver iterations (spmv, two
 * dot products reduced over MPI, three vector updates, a halo exchange),
 * then the time update and a timer. Each operation is a function of its
 * own.
 *
 *   mpirun -np 4 ./twolevel [steps [iterations]]
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 256

static double x[N], r[N], p[N], q[N], b[N];
static double t_solve;

void assemble(int step, int rank)
{
	for (int i = 0; i < N; i++)
		b[i] = sin(0.01 * (i + rank * N) + 0.1 * step);
	for (int i = 0; i < N; i++)
		r[i] = p[i] = b[i];
}

void halo(int rank, int size)
{
	int left = (rank + size - 1) % size, right = (rank + 1) % size;
	double in;
	MPI_Sendrecv(&p[N - 1], 1, MPI_DOUBLE, right, 0, &in, 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	p[0] += 1e-3 * in;
}

void spmv(void)
{
	for (int i = 0; i < N; i++)
		q[i] = 2 * p[i] - (i > 0 ? p[i - 1] : 0) - (i < N - 1 ? p[i + 1] : 0);
}

double dot(const double *u, const double *v)
{
	double s = 0, g = 0;
	for (int i = 0; i < N; i++)
		s += u[i] * v[i];
	MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	return g;
}

void axpy(double a, const double *u, double *v)
{
	for (int i = 0; i < N; i++)
		v[i] += a * u[i];
}

void xpay(const double *u, double a, double *v)
{
	for (int i = 0; i < N; i++)
		v[i] = u[i] + a * v[i];
}

void timer_start(void) { t_solve -= MPI_Wtime(); }

void timer_stop(void) { t_solve += MPI_Wtime(); }

void advance(double dt)
{
	for (int i = 0; i < N; i++)
		x[i] += dt * r[i];
}

int main(int argc, char **argv)
{
	int rank, size, steps = 12, iters = 6;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc > 1)
		steps = atoi(argv[1]);
	if (argc > 2)
		iters = atoi(argv[2]);
	for (int s = 0; s < steps; s++) {
		assemble(s, rank);
		timer_start();
		double rr = dot(r, r);
		for (int it = 0; it < iters; it++) {
			halo(rank, size);
			spmv();
			double alpha = rr / (dot(p, q) + 1e-30);
			axpy(alpha, p, x);
			axpy(-alpha, q, r);
			double rr2 = dot(r, r);
			xpay(r, rr2 / (rr + 1e-30), p);
			rr = rr2;
		}
		timer_stop();
		advance(1e-3);
	}
	if (rank == 0)
		printf("solve time %.3f s\n", t_solve);
	MPI_Finalize();
	return 0;
}
