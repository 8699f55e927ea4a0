/*
 * ilcs: a hybrid MPI+OpenMP master/worker search in the shape of ILCS
 * (seeds/002 §3.4, Listing 3.1), here solving a small travelling-salesman
 * problem with 2-opt local search from random tours.
 *
 * Every MPI process runs one OpenMP team of 1 master + W workers. Workers
 * (omp_get_thread_num() 1 … W) loop on CPU_Exec and copy an improved tour
 * into their champion slot with memcpy inside `#pragma omp critical`. The
 * master (thread 0, the only one that calls MPI) repeats a round — two
 * MPI_Allreduce (best length, then the rank holding it) and one MPI_Bcast of
 * that rank's champion — until the global champion has not changed for
 * STABLE rounds, then stops the workers.
 *
 * libgomp creates the workers in the order of their OpenMP thread numbers,
 * so in a trace numbered by thread creation (main = 0) worker k is thread k.
 *
 * Bugs (seeds/002 §3.4.2-3.4.4), selectable at run time:
 *   --crit-bug RANK THREAD  worker THREAD of process RANK updates its champion
 *                           without the critical section (a data race).
 *   --count-bug RANK        process RANK calls the first MPI_Allreduce with
 *                           count 0: it skips the collective, its later calls
 *                           pair with the wrong ones and the run deadlocks.
 *   --max-bug RANK          process RANK reduces with MPI_MAX instead of
 *                           MPI_MIN: the run ends, with a wrong search.
 *   --workers W             worker threads per process (default 4).
 *   --stats                 print how many CPU_Exec evaluations the workers
 *                           made and the worker CPU time each took (to
 *                           measure the cost of tracing).
 */
#include <mpi.h>
#include <omp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CITIES 24
#define STABLE 4          /* rounds without change before the search stops */
#define MAX_ROUNDS 200
#define ROUND_USEC 20000  /* the master looks at its workers every 20 ms */

typedef struct {
	int len;
	int tour[CITIES];
} champ_t;

static int dist[CITIES][CITIES];
static int crit_rank = -1, crit_thread = -1, count_rank = -1, max_rank = -1;
static volatile int cont = 1;
static int stats = 0;

/* A linear congruential generator, as a macro so that CPU_Exec makes no calls. */
#define LCG(s) ((s) = (s) * 1103515245u + 12345u, (s) >> 8)

/* CPU_Init places the cities and computes their distances; it returns the
 * size of a champion record. */
int CPU_Init(void)
{
	int x[CITIES], y[CITIES];
	unsigned s = 12345;
	for (int i = 0; i < CITIES; i++) {
		x[i] = LCG(s) % 1000;
		y[i] = LCG(s) % 1000;
	}
	for (int i = 0; i < CITIES; i++)
		for (int j = 0; j < CITIES; j++) {
			int dx = x[i] - x[j], dy = y[i] - y[j];
			dist[i][j] = (dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy);
		}
	return sizeof(champ_t);
}

/* CPU_Exec builds a random tour from seed and improves it with 2-opt moves
 * until none helps; it returns the tour's length. */
int CPU_Exec(unsigned seed, champ_t *res)
{
	int *t = res->tour;
	for (int i = 0; i < CITIES; i++)
		t[i] = i;
	for (int i = CITIES - 1; i > 0; i--) {
		int j = LCG(seed) % (i + 1), v = t[i];
		t[i] = t[j];
		t[j] = v;
	}
	for (int improved = 1; improved;) {
		improved = 0;
		for (int i = 0; i < CITIES - 2; i++)
			for (int j = i + 2; j < CITIES; j++) {
				int a = t[i], b = t[i + 1], c = t[j], d = t[(j + 1) % CITIES];
				if (d == a)
					continue;
				if (dist[a][c] + dist[b][d] < dist[a][b] + dist[c][d]) {
					for (int l = i + 1, r = j; l < r; l++, r--) {
						int v = t[l];
						t[l] = t[r];
						t[r] = v;
					}
					improved = 1;
				}
			}
	}
	int len = 0;
	for (int i = 0; i < CITIES; i++)
		len += dist[t[i]][t[(i + 1) % CITIES]];
	res->len = len;
	return len;
}

/* CPU_Output prints the champion. */
void CPU_Output(champ_t *c)
{
	printf("ilcs: best tour length %d\n", c->len);
}

static void usage(void)
{
	fprintf(stderr, "usage: ilcs [--workers W] [--crit-bug RANK THREAD] [--count-bug RANK] [--max-bug RANK]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int nprocs, my_rank, lCPUs = 4, lGPUs = 0, gCPUs, gGPUs;
	for (int a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--workers") == 0 && a + 1 < argc) {
			lCPUs = atoi(argv[++a]);
		} else if (strcmp(argv[a], "--crit-bug") == 0 && a + 2 < argc) {
			crit_rank = atoi(argv[a + 1]);
			crit_thread = atoi(argv[a + 2]);
			a += 2;
		} else if (strcmp(argv[a], "--count-bug") == 0 && a + 1 < argc) {
			count_rank = atoi(argv[++a]);
		} else if (strcmp(argv[a], "--max-bug") == 0 && a + 1 < argc) {
			max_rank = atoi(argv[++a]);
		} else if (strcmp(argv[a], "--stats") == 0) {
			stats = 1;
		} else {
			usage();
		}
	}
	if (lCPUs < 1)
		usage();

	MPI_Init(&argc, &argv);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
	MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
	MPI_Reduce(&lCPUs, &gCPUs, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	MPI_Reduce(&lGPUs, &gGPUs, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);

	int champSize = CPU_Init();
	champ_t *champ = malloc((size_t)champSize * (lCPUs + 1));
	champ_t *bcast = malloc((size_t)champSize);
	for (int i = 0; i <= lCPUs; i++)
		champ[i].len = INT_MAX;
	MPI_Barrier(MPI_COMM_WORLD);
	long evals = 0;
	double cpu = 0;

#pragma omp parallel num_threads(lCPUs + 1) reduction(+ : evals, cpu)
	{
		int rank = omp_get_thread_num();
		if (rank != 0) { /* worker threads */
			champ_t mine;
			unsigned n = 0;
			struct timespec c0, c1;
			if (stats)
				clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
			while (cont) {
				unsigned seed = (unsigned)(my_rank * 7919 + rank * 104729) + 2654435761u * ++n;
				int local_result = CPU_Exec(seed, &mine);
				evals++;
				if (local_result < champ[rank].len) { /* update the local champion */
					if (my_rank == crit_rank && rank == crit_thread) {
						memcpy(&champ[rank], &mine, champSize); /* critBug */
					} else {
#pragma omp critical
						memcpy(&champ[rank], &mine, champSize);
					}
				}
			}
			if (stats) {
				clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
				cpu += (c1.tv_sec - c0.tv_sec) + 1e-9 * (c1.tv_nsec - c0.tv_nsec);
			}
		} else { /* master thread */
			int best = INT_MAX, unchanged = 0, rounds = 0;
			do {
				usleep(ROUND_USEC);
				int local = INT_MAX, from = 1;
				for (int w = 1; w <= lCPUs; w++) {
					int l = ((volatile champ_t *)&champ[w])->len;
					if (l < local) {
						local = l;
						from = w;
					}
				}
				int global, cand, gid;
				MPI_Allreduce(&local, &global, my_rank == count_rank ? 0 : 1, MPI_INT,
					      my_rank == max_rank ? MPI_MAX : MPI_MIN, MPI_COMM_WORLD);
				cand = local == global ? my_rank : nprocs;
				MPI_Allreduce(&cand, &gid, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
				int root = gid < nprocs ? gid : 0;
				if (my_rank == root) {
#pragma omp critical
					memcpy(bcast, &champ[from], champSize);
				}
				MPI_Bcast(bcast, champSize, MPI_BYTE, root, MPI_COMM_WORLD);
				if (bcast->len < best) {
					best = bcast->len;
					unchanged = 0;
				} else {
					unchanged++;
				}
			} while (unchanged < STABLE && ++rounds < MAX_ROUNDS);
			cont = 0; /* signal the worker threads to terminate */
		}
	}
	if (stats) {
		long total = 0;
		double tcpu = 0;
		MPI_Reduce(&evals, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
		MPI_Reduce(&cpu, &tcpu, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
		if (my_rank == 0)
			printf("ilcs: %ld evaluations, %.0f ns of worker CPU time each\n", total, 1e9 * tcpu / total);
	}
	if (my_rank == 0)
		CPU_Output(bcast);
	MPI_Finalize();
	return 0;
}
