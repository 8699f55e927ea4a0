/*
 * rod: heat flowing along a rod cut into one piece per MPI rank, for
 * difftrace's one-run analysis (difftrace rank RUN): every rank runs the
 * same time steps, but the program has roles — rank 0 reads the input and
 * writes a checkpoint every few steps, and the first and the last rank have
 * one neighbour each, so they exchange half the halos the others do.
 *
 * Each step: exchange halos with the neighbours (MPI_Sendrecv), relax the
 * piece in a few sweeps, smooth it, and agree on the residual
 * (MPI_Allreduce).
 *
 *   rod [--steps N] [--skip-smooth RANK STEP] [--short-sweep RANK STEP]
 *
 * --skip-smooth RANK STEP: in step STEP (from 1), RANK does not smooth its
 * piece: one call its peers all make, missing.
 * --short-sweep RANK STEP: in step STEP, RANK relaxes in one sweep fewer:
 * a loop that ran once fewer.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CELLS 64
#define SWEEPS 4

static double piece[CELLS + 2];
static int skip_smooth_rank = -1, skip_smooth_step = -1;
static int short_rank = -1, short_step = -1;

static void read_input(double *u)
{
	for (int i = 0; i < CELLS + 2; i++)
		u[i] = (i % 7) * 0.5;
}

static void write_checkpoint(int step, const double *u)
{
	double s = 0;
	for (int i = 1; i <= CELLS; i++)
		s += u[i];
	printf("step %d: heat %.3f\n", step, s);
}

static void exchange(double *u, int rank, int size)
{
	if (rank > 0)
		MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, rank - 1, 0, &u[0], 1, MPI_DOUBLE, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	if (rank < size - 1)
		MPI_Sendrecv(&u[CELLS], 1, MPI_DOUBLE, rank + 1, 0, &u[CELLS + 1], 1, MPI_DOUBLE, rank + 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void sweep(double *u)
{
	for (int i = 1; i <= CELLS; i++)
		u[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1]);
}

static void relax(double *u, int sweeps)
{
	for (int s = 0; s < sweeps; s++)
		sweep(u);
}

static void smooth(double *u)
{
	for (int i = 2; i < CELLS; i++)
		u[i] = (u[i - 1] + 2 * u[i] + u[i + 1]) / 4;
}

static double residual(const double *u)
{
	double r = 0;
	for (int i = 1; i <= CELLS; i++) {
		double d = u[i] - 0.5 * (u[i - 1] + u[i + 1]);
		r += d * d;
	}
	return r;
}

int main(int argc, char **argv)
{
	int steps = 12;
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--steps") == 0 && a + 1 < argc) {
			steps = atoi(argv[++a]);
		} else if (strcmp(argv[a], "--skip-smooth") == 0 && a + 2 < argc) {
			skip_smooth_rank = atoi(argv[++a]);
			skip_smooth_step = atoi(argv[++a]);
		} else if (strcmp(argv[a], "--short-sweep") == 0 && a + 2 < argc) {
			short_rank = atoi(argv[++a]);
			short_step = atoi(argv[++a]);
		} else {
			if (rank == 0)
				fprintf(stderr, "usage: rod [--steps N] [--skip-smooth RANK STEP] [--short-sweep RANK STEP]\n");
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
	}
	if (rank == 0)
		read_input(piece);
	MPI_Bcast(piece, CELLS + 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	for (int step = 1; step <= steps; step++) {
		exchange(piece, rank, size);
		relax(piece, rank == short_rank && step == short_step ? SWEEPS - 1 : SWEEPS);
		if (!(rank == skip_smooth_rank && step == skip_smooth_step))
			smooth(piece);
		double r = residual(piece), total;
		MPI_Allreduce(&r, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		if (rank == 0 && step % 4 == 0)
			write_checkpoint(step, piece);
	}
	MPI_Finalize();
	return 0;
}
