/*
 * crew: an OpenMP program of one process for difftrace's one-run analysis
 * (difftrace rank RUN): a team of threads shares out the chunks of a sum
 * in a fixed (static) schedule, each adding its part in a critical section;
 * the main thread alone reads the input before and reports after, a role of
 * its own.
 *
 *   crew [--chunks N] [--skip-critical THREAD CHUNK] [--short THREAD]
 *
 * --skip-critical THREAD CHUNK: OpenMP thread THREAD adds its CHUNK-th
 * chunk (from 1) without the critical section: one call its peers all
 * make, missing (a race).
 * --short THREAD: OpenMP thread THREAD stops one chunk early: its loop
 * ran once fewer.
 *
 * The threads are traced in the order they were created, which is not
 * OpenMP's numbering: the thread the bug is planted in is found by what
 * its trace lacks, not by its number.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 4
#define WIDTH 256

static double total;

static void read_input(double *w)
{
	for (int i = 0; i < WIDTH; i++)
		w[i] = (i % 11) * 0.25;
}

static double work(const double *w, int chunk)
{
	double s = 0;
	for (int i = 0; i < WIDTH; i++)
		s += w[i] * (chunk + 1);
	return s;
}

static void add(double x) { total += x; }

static void report(double t) { printf("total %.2f\n", t); }

int main(int argc, char **argv)
{
	int chunks = 8 * THREADS, skip_thread = -1, skip_chunk = -1, short_thread = -1;
	for (int a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--chunks") == 0 && a + 1 < argc) {
			chunks = atoi(argv[++a]);
		} else if (strcmp(argv[a], "--skip-critical") == 0 && a + 2 < argc) {
			skip_thread = atoi(argv[++a]);
			skip_chunk = atoi(argv[++a]);
		} else if (strcmp(argv[a], "--short") == 0 && a + 1 < argc) {
			short_thread = atoi(argv[++a]);
		} else {
			fprintf(stderr, "usage: crew [--chunks N] [--skip-critical THREAD CHUNK] [--short THREAD]\n");
			return 2;
		}
	}
	static double w[WIDTH];
	read_input(w);
#pragma omp parallel num_threads(THREADS)
	{
		int me = omp_get_thread_num(), n = 0;
		int per = chunks / THREADS, last = per;
		if (me == short_thread)
			last = per - 1;
		for (int k = 0; k < last; k++) {
			double part = work(w, me * per + k);
			n++;
			if (me == skip_thread && n == skip_chunk) {
				add(part);
				continue;
			}
#pragma omp critical
			add(part);
		}
	}
	report(total);
	return 0;
}
