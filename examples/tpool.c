/* tpool: a pthreads image-tile pipeline. Worker w processes tiles w, w+W,
 * w+2W, ... (12 tiles each): it loads a tile, filters it (a refinement loop of
 * 5 passes, each a blur and a sharpen), and commits its histogram to a shared
 * table under a mutex, then logs progress.
 *
 * Planted bugs (W = worker number from 1, K = the worker's tile from 1):
 *   --skip-lock W K    worker W commits tile K without taking the mutex
 *   --short-loop W K   worker W's refinement runs 4 passes instead of 5 on tile K
 *   --swap W K         worker W sharpens before it blurs in every pass of tile K
 *   --extra-call W K   worker W validates tile K once more (an extra validate_tile)
 *   --hang W K         worker W forgets to unlock after tile K: it and the others block on the mutex
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))
#define NW 3
#define NT 12
#define TILE 64
#define NPASS 5

enum { NONE, SKIP_LOCK, SHORT_LOOP, SWAP, EXTRA_CALL, HANG };
static int bug_kind = NONE, bug_worker = -1, bug_tile = -1;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static long histogram[16];
static long tiles_done, bad_tiles, validations;

struct tile { int id; double px[TILE]; };

static NOINLINE int bug(int kind, int w, int k) { return bug_kind == kind && bug_worker == w && bug_tile == k; }

static NOINLINE void load_tile(struct tile *t, int id) {
    t->id = id;
    for (int i = 0; i < TILE; i++) t->px[i] = (double)((id * 31 + i * 17) % 255);
}

static NOINLINE void blur(struct tile *t) {
    for (int i = 1; i < TILE - 1; i++) t->px[i] = (t->px[i - 1] + 2 * t->px[i] + t->px[i + 1]) / 4;
}

static NOINLINE void sharpen(struct tile *t) {
    for (int i = 1; i < TILE - 1; i++) t->px[i] = 1.5 * t->px[i] - 0.25 * (t->px[i - 1] + t->px[i + 1]);
}

static NOINLINE void clamp(struct tile *t) {
    for (int i = 0; i < TILE; i++) t->px[i] = t->px[i] < 0 ? 0 : t->px[i] > 255 ? 255 : t->px[i];
}

static NOINLINE void refine(struct tile *t, int w, int k) {
    int n = bug(SHORT_LOOP, w, k) ? NPASS - 1 : NPASS;
    for (int p = 0; p < n; p++) {
        if (bug(SWAP, w, k)) {
            sharpen(t);
            blur(t);
        } else {
            blur(t);
            sharpen(t);
        }
    }
    clamp(t);
}

static NOINLINE int validate_tile(const struct tile *t) {
    __atomic_add_fetch(&validations, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < TILE; i++) if (t->px[i] != t->px[i]) return 0;
    return 1;
}

static NOINLINE void commit(const struct tile *t) {
    for (int i = 0; i < TILE; i++) histogram[(int)t->px[i] / 16]++;
    tiles_done++;
}

static NOINLINE void log_progress(int w, int k) {
    if (k == NT) fprintf(stderr, "worker %d done\n", w);
}

static NOINLINE void process_tile(int w, int k) {
    struct tile t;
    load_tile(&t, (k - 1) * NW + (w - 1));
    refine(&t, w, k);
    if (!validate_tile(&t)) __atomic_add_fetch(&bad_tiles, 1, __ATOMIC_RELAXED);
    if (bug(EXTRA_CALL, w, k) && !validate_tile(&t)) __atomic_add_fetch(&bad_tiles, 1, __ATOMIC_RELAXED);
    if (bug(SKIP_LOCK, w, k)) {
        commit(&t);
    } else {
        pthread_mutex_lock(&table_lock);
        commit(&t);
        if (!bug(HANG, w, k)) pthread_mutex_unlock(&table_lock);
    }
    log_progress(w, k);
}

static void *worker(void *arg) {
    int w = (int)(long)arg;
    for (int k = 1; k <= NT; k++) process_tile(w, k);
    return NULL;
}

int main(int argc, char **argv) {
    static const char *names[] = {"", "--skip-lock", "--short-loop", "--swap", "--extra-call", "--hang"};
    for (int i = 1; i < argc; i++) {
        int k;
        for (k = 1; k <= HANG; k++) if (!strcmp(argv[i], names[k])) break;
        if (k > HANG || i + 2 >= argc) { fprintf(stderr, "usage: tpool [--BUG W K]\n"); return 2; }
        bug_kind = k;
        bug_worker = atoi(argv[++i]);
        bug_tile = atoi(argv[++i]);
    }
    pthread_t th[NW];
    for (int w = 1; w <= NW; w++) pthread_create(&th[w - 1], NULL, worker, (void *)(long)w);
    for (int w = 1; w <= NW; w++) pthread_join(th[w - 1], NULL);
    printf("tiles %ld bad %ld\n", tiles_done, bad_tiles);
    return 0;
}
