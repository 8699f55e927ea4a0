// depot: a master/worker MPI program in C++ whose tasks are handed out in
// a fixed order (round robin), so every normal run is alike, for
// difftrace's one-run analysis: the master (rank 0) is a role of its own,
// the workers are peers.
//
// Rank 0 sends each worker its tasks in turn and gathers the results; a
// worker loads a task, runs it through a small pipeline of classes
// (Parser, Solver, Checker) and sends the result back.
//
//   depot [--tasks N] [--skip-check WORKER TASK] [--redo WORKER TASK]
//
// --skip-check WORKER TASK: worker WORKER does not check the result of
// its TASK-th task (from 1): one call its peers all make, missing.
// --redo WORKER TASK: worker WORKER solves its TASK-th task twice: one
// call more, in one iteration.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace depot {

struct Task {
	int id;
	std::vector<double> data;
};

class Parser {
public:
	Task parse(int id, const double *raw, int n) const
	{
		Task t{id, std::vector<double>(raw, raw + n)};
		return t;
	}
};

class Solver {
public:
	double solve(const Task &t) const
	{
		double s = 0;
		for (double x : t.data)
			s += step(x);
		return s;
	}

private:
	double step(double x) const { return x * 0.5 + 1; }
};

class Checker {
public:
	bool check(const Task &t, double result) const { return result >= static_cast<double>(t.data.size()); }
};

const int kWidth = 16;
enum Tag { kTask = 1, kResult = 2, kStop = 3 };

void master(int size, int tasks)
{
	std::vector<double> raw(kWidth);
	double sum = 0;
	for (int t = 0; t < tasks; t++) {
		int w = 1 + t % (size - 1);
		for (int i = 0; i < kWidth; i++)
			raw[i] = t + i;
		MPI_Send(raw.data(), kWidth, MPI_DOUBLE, w, kTask, MPI_COMM_WORLD);
		double r;
		MPI_Recv(&r, 1, MPI_DOUBLE, w, kResult, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		sum += r;
	}
	for (int w = 1; w < size; w++)
		MPI_Send(raw.data(), 0, MPI_DOUBLE, w, kStop, MPI_COMM_WORLD);
	std::printf("sum %.1f\n", sum);
}

void worker(int rank, int skipCheck, int redo)
{
	Parser parser;
	Solver solver;
	Checker checker;
	std::vector<double> raw(kWidth);
	for (int n = 1;; n++) {
		MPI_Status st;
		MPI_Recv(raw.data(), kWidth, MPI_DOUBLE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
		if (st.MPI_TAG == kStop)
			break;
		Task t = parser.parse(n, raw.data(), kWidth);
		double r = solver.solve(t);
		if (n == redo)
			r = solver.solve(t);
		if (n != skipCheck && !checker.check(t, r))
			r = -1;
		MPI_Send(&r, 1, MPI_DOUBLE, 0, kResult, MPI_COMM_WORLD);
	}
	(void)rank;
}

} // namespace depot

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int tasks = 6 * (size - 1), skipW = -1, skipT = -1, redoW = -1, redoT = -1;
	for (int a = 1; a < argc; a++) {
		if (std::strcmp(argv[a], "--tasks") == 0 && a + 1 < argc) {
			tasks = std::atoi(argv[++a]);
		} else if (std::strcmp(argv[a], "--skip-check") == 0 && a + 2 < argc) {
			skipW = std::atoi(argv[++a]);
			skipT = std::atoi(argv[++a]);
		} else if (std::strcmp(argv[a], "--redo") == 0 && a + 2 < argc) {
			redoW = std::atoi(argv[++a]);
			redoT = std::atoi(argv[++a]);
		} else {
			if (rank == 0)
				std::fprintf(stderr, "usage: depot [--tasks N] [--skip-check WORKER TASK] [--redo WORKER TASK]\n");
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
	}
	if (size < 2) {
		std::fprintf(stderr, "depot: run on 2 ranks or more\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	if (rank == 0)
		depot::master(size, tasks);
	else
		depot::worker(rank, rank == skipW ? skipT : -1, rank == redoW ? redoT : -1);
	MPI_Finalize();
	return 0;
}
