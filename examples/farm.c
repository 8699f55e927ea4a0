/*
 * farm: a master/worker (task farm) MPI program whose normal runs differ
 * from each other, for difftrace's noise handling (rank --also-normal).
 *
 * Rank 0 hands out tasks of uneven cost; each worker computes one, sends the
 * result back and gets the next. The master takes results from whichever
 * worker is done first (MPI_ANY_SOURCE) and polls for them with MPI_Iprobe,
 * so two runs of the same input differ in how many tasks each worker does,
 * in which order the master hears from them and in how often it polls —
 * the program's own nondeterminism, no bug. With --threads, each worker
 * splits a task over OpenMP threads with schedule(dynamic): how many chunks
 * each thread takes varies from run to run too.
 *
 *   farm [--tasks N] [--threads T] [--skip-verify W N] [--skip-critical W N]
 *
 * --skip-verify W N: worker W does not verify the result of its N-th task
 * (counting from 1) before sending it: one call of verify() missing, the
 * bug difftrace should find among the noise.
 * --skip-critical W N: in worker W's N-th task, OpenMP thread 0 (the
 * rank's main thread, trace W.0) adds its share without the critical
 * section (with --threads).
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_TASK = 1, TAG_RESULT = 2, TAG_STOP = 3 };

static int skip_verify_rank = -1, skip_verify_task = -1;
static int skip_crit_rank = -1, skip_crit_task = -1;

/* The cost of task t: uneven, so that which worker gets which task depends
 * on who is done first. */
static int task_cost(int t) { return 2000 + (t * 7919) % 9000; }

static double integrand(double x) { return 4.0 / (1.0 + x * x); }

static double chunk(int lo, int hi, int n)
{
	double s = 0;
	for (int i = lo; i < hi; i++) {
		double x = (i + 0.5) / n;
		s += integrand(x);
	}
	return s;
}

/* compute integrates over n points in chunks of 64, on the OpenMP threads
 * when there are several. */
static double compute(int n, int skip_critical)
{
	double sum = 0;
#pragma omp parallel
	{
		double mine = 0;
#pragma omp for schedule(dynamic, 1)
		for (int c = 0; c < (n + 63) / 64; c++)
			mine += chunk(c * 64, c * 64 + 64 < n ? c * 64 + 64 : n, n);
		int me = omp_get_thread_num();
		if (skip_critical && me == 0) {
			sum += mine; /* the bug: no critical section */
		} else {
#pragma omp critical
			sum += mine;
		}
	}
	return sum / n;
}

static int verify(double r)
{
	return r > 3.0 && r < 3.3;
}

static void log_result(int worker, int task, double r)
{
	if (getenv("FARM_VERBOSE"))
		printf("worker %d task %d: %.6f\n", worker, task, r);
}

static void idle_poll(void)
{
	/* nothing to do while no result is there */
}

static void master(int size, int tasks)
{
	int next = 0, done = 0, active = 0;
	double total = 0;
	for (int w = 1; w < size; w++) {
		if (next < tasks) {
			MPI_Send(&next, 1, MPI_INT, w, TAG_TASK, MPI_COMM_WORLD);
			next++;
			active++;
		} else {
			MPI_Send(&next, 1, MPI_INT, w, TAG_STOP, MPI_COMM_WORLD);
		}
	}
	while (active > 0) {
		int flag = 0;
		MPI_Status st;
		while (!flag) {
			MPI_Iprobe(MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &flag, &st);
			if (!flag)
				idle_poll();
		}
		double r;
		MPI_Recv(&r, 1, MPI_DOUBLE, st.MPI_SOURCE, TAG_RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		total += r;
		done++;
		if (next < tasks) {
			MPI_Send(&next, 1, MPI_INT, st.MPI_SOURCE, TAG_TASK, MPI_COMM_WORLD);
			next++;
		} else {
			MPI_Send(&next, 1, MPI_INT, st.MPI_SOURCE, TAG_STOP, MPI_COMM_WORLD);
			active--;
		}
	}
	printf("%d tasks, mean %.9f\n", done, total / done);
}

static void worker(int rank)
{
	int count = 0;
	for (;;) {
		int t;
		MPI_Status st;
		MPI_Recv(&t, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
		if (st.MPI_TAG == TAG_STOP)
			break;
		count++;
		double r = compute(task_cost(t), rank == skip_crit_rank && count == skip_crit_task);
		if (!(rank == skip_verify_rank && count == skip_verify_task)) {
			if (!verify(r))
				fprintf(stderr, "worker %d: task %d gave %f\n", rank, t, r);
		}
		log_result(rank, t, r);
		MPI_Send(&r, 1, MPI_DOUBLE, 0, TAG_RESULT, MPI_COMM_WORLD);
	}
}

int main(int argc, char **argv)
{
	int rank, size, tasks = 200, threads = 1;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--tasks") && i + 1 < argc)
			tasks = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			threads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--skip-verify") && i + 2 < argc) {
			skip_verify_rank = atoi(argv[++i]);
			skip_verify_task = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--skip-critical") && i + 2 < argc) {
			skip_crit_rank = atoi(argv[++i]);
			skip_crit_task = atoi(argv[++i]);
		} else {
			if (rank == 0)
				fprintf(stderr, "usage: farm [--tasks N] [--threads T] [--skip-verify W N] [--skip-critical W N]\n");
			MPI_Finalize();
			return 2;
		}
	}
	omp_set_num_threads(threads);
	if (size < 2) {
		fprintf(stderr, "farm: run with at least 2 ranks (1 master, workers)\n");
		MPI_Finalize();
		return 2;
	}
	if (rank == 0)
		master(size, tasks);
	else
		worker(rank);
	MPI_Finalize();
	return 0;
}
