/* parallel.c - the compiler's one way of using several cores: independent jobs handed out to a
 * few threads.
 *
 * The design idea: the compile of a model has a few stages made of independent pieces (the
 * tiling search of each distinct layer geometry, the CPU code of disjoint sets of nodes), and
 * each piece is pure: it reads shared inputs and writes only its own result slot. So a counter
 * that threads take job numbers from is all the scheduling needed; results do not depend on
 * the number of threads or on which thread ran which job, and one thread (VTA_THREADS=1)
 * gives the same output as many.
 */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "compiler/compiler.h"

int vta_compile_threads(void) {
  const char *e = getenv("VTA_THREADS");
  if (e && *e) {
    char *end;
    long n = strtol(e, &end, 10);
    if (*end == 0 && n >= 1) return n > 64 ? 64 : (int)n;
  }
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > 8 ? 8 : (int)n;
}

typedef struct pool {
  pthread_mutex_t lock;
  int next, n;
  void (*fn)(void *ctx, int job);
  void *ctx;
} pool;

static void *worker(void *arg) {
  pool *p = arg;
  for (;;) {
    pthread_mutex_lock(&p->lock);
    int job = p->next < p->n ? p->next++ : -1;
    pthread_mutex_unlock(&p->lock);
    if (job < 0) return NULL;
    p->fn(p->ctx, job);
  }
}

void vta_parallel_for(int n, int threads, void (*fn)(void *ctx, int job), void *ctx) {
  pool p = {.next = 0, .n = n, .fn = fn, .ctx = ctx};
  pthread_mutex_init(&p.lock, NULL);
  if (threads > n) threads = n;
  pthread_t tid[64];
  int started = 0;
  /* The calling thread is one of the workers; a thread that cannot be started only means
   * fewer workers (every job still runs). */
  for (int t = 1; t < threads && t < 64; t++)
    if (pthread_create(&tid[started], NULL, worker, &p) == 0) started++;
  worker(&p);
  for (int t = 0; t < started; t++) pthread_join(tid[t], NULL);
  pthread_mutex_destroy(&p.lock);
}
