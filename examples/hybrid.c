/* hybrid: an MPI+OpenMP C proxy of a hybrid time-stepping code, written for
 * difftrace's mutation tests. It is a normal program with no bug of its
 * own: the tests take its traces as they are and plant the faults
 * themselves (internal/mutation).
 *
 * Every rank runs a fixed team of OpenMP threads. Each time step the team
 * updates its block of cells with a static schedule (every thread the same
 * chunks in every run), each thread adds its partial sum inside a critical
 * section, and the master exchanges boundary values with its neighbours
 * and reduces the global sum over MPI.
 *
 *   OMP_NUM_THREADS=3 mpirun -np 4 ./hybrid [steps]
 */
#include <math.h>
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define CELLS 96
#define CHUNK 8

static double cells[CELLS];
static double total;

/* relax updates one cell. */
double relax(int i, double left, double right)
{
	return 0.5 * cells[i] + 0.25 * (left + right);
}

/* update_chunk relaxes CHUNK cells from lo on and returns their sum. */
double update_chunk(int lo)
{
	double s = 0;
	for (int i = lo; i < lo + CHUNK; i++) {
		double l = i > 0 ? cells[i - 1] : 0, r = i < CELLS - 1 ? cells[i + 1] : 0;
		cells[i] = relax(i, l, r);
		s += cells[i];
	}
	return s;
}

/* accumulate adds a thread's partial sum to the team's. */
void accumulate(double part)
{
#pragma omp critical
	total += part;
}

/* team_update is the parallel part of a step. */
void team_update(void)
{
	total = 0;
#pragma omp parallel
	{
		double part = 0;
#pragma omp for schedule(static)
		for (int c = 0; c < CELLS / CHUNK; c++)
			part += update_chunk(c * CHUNK);
		accumulate(part);
	}
}

/* exchange swaps the end cells with the neighbour ranks. */
void exchange(int rank, int size)
{
	int left = (rank + size - 1) % size, right = (rank + 1) % size;
	double in[2];
	MPI_Request req[4];
	MPI_Irecv(&in[0], 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &req[0]);
	MPI_Irecv(&in[1], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[1]);
	MPI_Isend(&cells[CELLS - 1], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &req[2]);
	MPI_Isend(&cells[0], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[3]);
	MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
	cells[0] = 0.5 * (cells[0] + in[0]);
	cells[CELLS - 1] = 0.5 * (cells[CELLS - 1] + in[1]);
}

/* global_sum reduces the team's total over the ranks. */
double global_sum(void)
{
	double g = 0;
	MPI_Allreduce(&total, &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	return g;
}

int main(int argc, char **argv)
{
	int provided, rank, size, steps = 10;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc > 1)
		steps = atoi(argv[1]);
	for (int i = 0; i < CELLS; i++)
		cells[i] = sin(0.1 * (i + rank * CELLS));
	double g = 0;
	for (int s = 0; s < steps; s++) {
		team_update();
		exchange(rank, size);
		g = global_sum();
	}
	if (rank == 0)
		printf("sum %.6f\n", g);
	MPI_Finalize();
	return 0;
}
