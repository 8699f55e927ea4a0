/*
 * oddeven: the odd/even transposition sort of seeds/002 Fig. 3.2, the
 * DiffTrace walk-through example, with the two bugs of §3.2.7.
 *
 * Every rank holds a block of BLOCK integers. In phase i (i = 0 … size-1)
 * ranks exchange blocks with the partner findPtr(i, rank) — even phases pair
 * (0,1) (2,3) …, odd phases pair (1,2) (3,4) … — and keep the lower or upper
 * half of the merged pair. Even ranks send first and odd ranks receive first,
 * so the traces of even ranks repeat [MPI_Send, MPI_Recv] and those of odd
 * ranks [MPI_Recv, MPI_Send]; the edge ranks sit out every other phase.
 *
 *   --swap-bug RANK ITER      from phase ITER on, RANK swaps its Send/Recv
 *                             order (swapBug: a potential deadlock that the
 *                             MPI eager protocol hides; the run completes).
 *   --deadlock-bug RANK ITER  in phase ITER, RANK receives with the wrong tag:
 *                             it waits in MPI_Recv for a message that never
 *                             comes while its partner, having sent, waits in
 *                             MPI_Recv for RANK (dlBug: a real head-to-head
 *                             Recv || Recv deadlock; the run hangs).
 *   --check                   gather the blocks on rank 0 and verify the sort.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 4
#define WRONG_TAG 999

static int swap_rank = -1, swap_iter = -1;
static int dl_rank = -1, dl_iter = -1;
static int data[BLOCK];

/* findPtr returns the partner of rank in phase i, or -1 when rank sits out. */
int findPtr(int i, int rank, int cp)
{
	int ptr;
	if (i % 2 == 0)
		ptr = rank % 2 == 0 ? rank + 1 : rank - 1;
	else
		ptr = rank % 2 == 0 ? rank - 1 : rank + 1;
	if (ptr < 0 || ptr >= cp)
		return -1;
	return ptr;
}

/* oddEvenSort runs the size phases of the sort on this rank's block. */
void oddEvenSort(int rank, int cp)
{
	int other[BLOCK], merged[2 * BLOCK];
	for (int i = 0; i < cp; i++) {
		int ptr = findPtr(i, rank, cp);
		if (ptr < 0)
			continue;
		int send_first = rank % 2 == 0;
		if (rank == swap_rank && i >= swap_iter)
			send_first = !send_first;
		int tag = i;
		if (rank == dl_rank && i == dl_iter)
			tag = WRONG_TAG;
		if (send_first) {
			MPI_Send(data, BLOCK, MPI_INT, ptr, i, MPI_COMM_WORLD);
			MPI_Recv(other, BLOCK, MPI_INT, ptr, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(other, BLOCK, MPI_INT, ptr, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(data, BLOCK, MPI_INT, ptr, i, MPI_COMM_WORLD);
		}
		/* Merge the two sorted blocks; keep the lower half on the lower rank. */
		int a = 0, b = 0;
		for (int k = 0; k < 2 * BLOCK; k++)
			merged[k] = (b >= BLOCK || (a < BLOCK && data[a] <= other[b])) ? data[a++] : other[b++];
		int from = rank < ptr ? 0 : BLOCK;
		for (int k = 0; k < BLOCK; k++)
			data[k] = merged[from + k];
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: oddeven [--swap-bug RANK ITER] [--deadlock-bug RANK ITER] [--check]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int rank, cp, check = 0;
	for (int a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--swap-bug") == 0 && a + 2 < argc) {
			swap_rank = atoi(argv[a + 1]);
			swap_iter = atoi(argv[a + 2]);
			a += 2;
		} else if (strcmp(argv[a], "--deadlock-bug") == 0 && a + 2 < argc) {
			dl_rank = atoi(argv[a + 1]);
			dl_iter = atoi(argv[a + 2]);
			a += 2;
		} else if (strcmp(argv[a], "--check") == 0) {
			check = 1;
		} else {
			usage();
		}
	}
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &cp);

	/* Initialise the block with a fixed pseudo-random sequence and sort it. */
	unsigned x = 2654435761u * (unsigned)(rank + 1);
	for (int k = 0; k < BLOCK; k++) {
		x = x * 1103515245u + 12345u;
		int v = (int)((x >> 16) % 1000), j = k;
		for (; j > 0 && data[j - 1] > v; j--)
			data[j] = data[j - 1];
		data[j] = v;
	}

	oddEvenSort(rank, cp);

	if (check) {
		int *all = rank == 0 ? malloc(sizeof(int) * BLOCK * cp) : NULL;
		MPI_Gather(data, BLOCK, MPI_INT, all, BLOCK, MPI_INT, 0, MPI_COMM_WORLD);
		if (rank == 0) {
			int ok = 1;
			for (int k = 1; k < BLOCK * cp; k++)
				ok &= all[k - 1] <= all[k];
			printf("oddeven: %d values on %d ranks %s\n", BLOCK * cp, cp, ok ? "sorted" : "NOT SORTED");
			free(all);
			if (!ok)
				MPI_Abort(MPI_COMM_WORLD, 1);
		}
	}
	MPI_Finalize();
	return 0;
}
