/* threads.c: the context's own thread pool (POSIX threads), used when the host gives no
 * parallel-for of its own.
 *
 * The calling thread is worker 0 and works too; workers 1..n-1 sleep on a condition variable
 * between jobs. A job hands out indices from an atomic counter, so uneven tasks balance
 * themselves, and the caller returns once every index has finished. A worker that wakes late
 * for a job that is already over finds no index left; the next job is set up only when no
 * worker is inside a job (`active` is 0), so no worker ever reads a job while it changes.
 * A parallel-for issued from inside a task runs serially on the thread that issued it, as
 * the same worker.
 *
 * Workers are started with every signal blocked (they inherit the mask), so a signal sent to
 * the process goes to the host's own threads, where its handlers expect it, never to a worker
 * in the middle of a job. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>

#include "core/core.h"

typedef struct worker_arg {
    upf_thread_pool *pool;
    int worker;
} worker_arg;

struct upf_thread_pool {
    upf_context *ctx;
    int threads;
    pthread_t tids[UPF_MAX_THREADS];
    worker_arg args[UPF_MAX_THREADS]; /* each worker's start arguments (kept in the pool, so
                                       * the context's count of live blocks stays exact) */
    int started;

    pthread_mutex_t lock;
    pthread_cond_t wake;      /* workers wait here for a new job (or shutdown) */
    pthread_cond_t done;      /* the caller waits here for the job's end and for idle workers */
    int active;               /* workers inside run_indices, under `lock` */
    unsigned long generation; /* bumped for every job */
    bool shutdown;

    /* the current job */
    upf_task_fn task;
    void *task_priv;
    int count;
    atomic_int next;          /* next index to hand out */
    int finished;             /* indices done, under `lock` */
    atomic_bool busy;
};

/* The worker number of the thread running a task, or -1 outside a pool task. Per thread, so
 * a nested parallel-for knows which worker's scratch it may use. */
static _Thread_local int current_worker = -1;

int upf__online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static void run_indices(upf_thread_pool *pool, int worker)
{
    int done_here = 0;
    current_worker = worker;
    for (;;) {
        int i = atomic_fetch_add(&pool->next, 1);
        if (i >= pool->count)
            break;
        pool->task(pool->task_priv, i, worker);
        done_here++;
    }
    current_worker = -1;
    if (done_here) {
        pthread_mutex_lock(&pool->lock);
        pool->finished += done_here;
        if (pool->finished == pool->count)
            pthread_cond_broadcast(&pool->done);
        pthread_mutex_unlock(&pool->lock);
    }
}

static void *worker_main(void *arg)
{
    upf_thread_pool *pool = ((worker_arg *)arg)->pool;
    int worker = ((worker_arg *)arg)->worker;
    unsigned long seen = 0;
    for (;;) {
        pthread_mutex_lock(&pool->lock);
        while (!pool->shutdown && pool->generation == seen)
            pthread_cond_wait(&pool->wake, &pool->lock);
        if (pool->shutdown) {
            pthread_mutex_unlock(&pool->lock);
            return NULL;
        }
        seen = pool->generation;
        pool->active++;
        pthread_mutex_unlock(&pool->lock);
        run_indices(pool, worker);
        pthread_mutex_lock(&pool->lock);
        if (--pool->active == 0)
            pthread_cond_broadcast(&pool->done);
        pthread_mutex_unlock(&pool->lock);
    }
}

upf_thread_pool *upf__pool_create(upf_context *ctx, int threads)
{
    upf_thread_pool *pool = upf__alloc(ctx, sizeof *pool, "the thread pool");
    if (!pool)
        return NULL;
    pool->ctx = ctx;
    pool->threads = threads;
    pthread_mutex_init(&pool->lock, NULL);
    pthread_cond_init(&pool->wake, NULL);
    pthread_cond_init(&pool->done, NULL);
    atomic_init(&pool->next, 0);
    atomic_init(&pool->busy, false);
    sigset_t all, old_mask;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old_mask);
    for (int w = 1; w < threads; w++) {
        pool->args[w] = (worker_arg){ pool, w };
        int err = pthread_create(&pool->tids[w], NULL, worker_main, &pool->args[w]);
        if (err) {
            pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
            upf__fail(ctx, UPF_ERROR_INTERNAL, "pthread_create failed for worker %d (error %d)",
                      w, err);
            upf__pool_destroy(ctx, pool);
            return NULL;
        }
        pool->started = w;
    }
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    return pool;
}

void upf__pool_destroy(upf_context *ctx, upf_thread_pool *pool)
{
    if (!pool)
        return;
    pthread_mutex_lock(&pool->lock);
    pool->shutdown = true;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
    for (int w = 1; w <= pool->started; w++)
        pthread_join(pool->tids[w], NULL);
    pthread_mutex_destroy(&pool->lock);
    pthread_cond_destroy(&pool->wake);
    pthread_cond_destroy(&pool->done);
    upf__free(ctx, pool);
}

void upf__pool_run(upf_thread_pool *pool, upf_task_fn task, void *task_priv, int count)
{
    /* A nested call (from inside a task) or a call while another job runs: serial. */
    bool expected = false;
    if (current_worker >= 0 || !atomic_compare_exchange_strong(&pool->busy, &expected, true)) {
        int worker = current_worker >= 0 ? current_worker : 0;
        for (int i = 0; i < count; i++)
            task(task_priv, i, worker);
        return;
    }
    pthread_mutex_lock(&pool->lock);
    while (pool->active > 0)
        pthread_cond_wait(&pool->done, &pool->lock);
    pool->task = task;
    pool->task_priv = task_priv;
    pool->count = count;
    pool->finished = 0;
    atomic_store(&pool->next, 0);
    pool->generation++;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);

    run_indices(pool, 0);

    pthread_mutex_lock(&pool->lock);
    while (pool->finished < pool->count)
        pthread_cond_wait(&pool->done, &pool->lock);
    pthread_mutex_unlock(&pool->lock);
    atomic_store(&pool->busy, false);
}
