/* pipeline.c: a frame loop's reading ahead and writing behind (pipeline.h) on one POSIX
 * thread. The worker runs one job at a time, handed over under a mutex: "write frame k-1's
 * output, then read frame k+1" (the write first, as a serial loop would). The caller hands a
 * job over in seq_pipe_next and waits for it in the next seq_pipe_next, so at most one job is
 * in flight and the slots it touches (one input slot, one output buffer) are not the caller's
 * at that time. The worker blocks every signal, so handlers run on the caller's threads. */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "sequence/pipeline.h"

struct seq_pipe {
    seq_pipe_io io;
    int count;
    bool overlap;
    seq_frame slot[2];       /* frame k is in slot[k % 2] */
    bool filled[2];
    int next;                /* the frame seq_pipe_next returns next */
    upf_image out;           /* the current frame's output, put and not yet written */
    bool has_out;
    int rc;                  /* the first failure of a job (read or write), or 0 */
    /* The worker's job: write frame write_k (-1: none), then read frame read_k (-1: none). */
    pthread_t thread;
    bool started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool job, quit;
    int write_k, read_k;
    upf_image write_out;
};

/* One job, on the worker or (serial) on the caller: the write, then the read if it worked. */
static void run_job(seq_pipe *p, int write_k, const upf_image *out, int read_k)
{
    int rc = 0;
    if (write_k >= 0)
        rc = p->io.write(p->io.user, write_k, out);
    if (rc == 0 && read_k >= 0) {
        seq_frame *f = &p->slot[read_k % 2];
        if (p->filled[read_k % 2])
            seq_frame_free(f);
        memset(f, 0, sizeof *f);
        p->filled[read_k % 2] = false;
        rc = p->io.read(p->io.user, read_k, f);
        p->filled[read_k % 2] = rc == 0;
    }
    if (rc && !p->rc)
        p->rc = rc;
}

static void *worker(void *arg)
{
    seq_pipe *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->job && !p->quit)
            pthread_cond_wait(&p->cv, &p->mu);
        if (!p->job)
            break;
        int wk = p->write_k, rk = p->read_k;
        upf_image out = p->write_out;
        pthread_mutex_unlock(&p->mu);
        run_job(p, wk, &out, rk);
        pthread_mutex_lock(&p->mu);
        p->job = false;
        pthread_cond_broadcast(&p->cv);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* Waits for the job in flight (none: returns at once). */
static void wait_job(seq_pipe *p)
{
    if (!p->started)
        return;
    pthread_mutex_lock(&p->mu);
    while (p->job)
        pthread_cond_wait(&p->cv, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

/* Hands a job to the worker, or runs it here when serial. */
static void submit(seq_pipe *p, int write_k, const upf_image *out, int read_k)
{
    if (!p->started) {
        run_job(p, write_k, out, read_k);
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->write_k = write_k;
    p->write_out = out ? *out : (upf_image){ 0 };
    p->read_k = read_k;
    p->job = true;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

seq_pipe *seq_pipe_start(const seq_pipe_io *io, int count, bool overlap)
{
    seq_pipe *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->io = *io;
    p->count = count;
    p->overlap = overlap;
    if (overlap) {
        if (pthread_mutex_init(&p->mu, NULL) != 0) {
            free(p);
            return NULL;
        }
        pthread_cond_init(&p->cv, NULL);
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old); /* the worker inherits the mask */
        p->started = pthread_create(&p->thread, NULL, worker, p) == 0;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (!p->started) {
            pthread_cond_destroy(&p->cv);
            pthread_mutex_destroy(&p->mu);
            free(p);
            return NULL;
        }
    }
    if (count > 0)
        submit(p, -1, NULL, 0); /* frame 0, read ahead */
    return p;
}

int seq_pipe_next(seq_pipe *p, const seq_frame **frame)
{
    *frame = NULL;
    if (p->next >= p->count)
        return p->rc;
    wait_job(p);
    if (p->rc)
        return p->rc;
    int k = p->next++;
    /* Frame k is read. Overlapped: write k-1 and read k+1 while the caller works on k.
     * Serial: the write of k-1 was done in seq_pipe_put; read k now, were it not read. */
    if (p->started) {
        submit(p, p->has_out ? k - 1 : -1, &p->out, k + 1 < p->count ? k + 1 : -1);
        p->has_out = false;
    }
    *frame = &p->slot[k % 2];
    return 0;
}

int seq_pipe_put(seq_pipe *p, const upf_image *out)
{
    int k = p->next - 1;
    if (p->started) {
        p->out = *out; /* written by the job the next seq_pipe_next (or finish) hands over */
        p->has_out = true;
        return 0;
    }
    /* Serial: write k, then read k + 1. */
    submit(p, k, out, k + 1 < p->count ? k + 1 : -1);
    return p->rc;
}

int seq_pipe_finish(seq_pipe *p)
{
    wait_job(p);
    if (p->started && p->has_out && !p->rc) {
        submit(p, p->next - 1, &p->out, -1);
        p->has_out = false;
        wait_job(p);
    }
    return p->rc;
}

void seq_pipe_stop(seq_pipe **pp)
{
    seq_pipe *p = *pp;
    if (!p)
        return;
    if (p->started) {
        pthread_mutex_lock(&p->mu);
        while (p->job)
            pthread_cond_wait(&p->cv, &p->mu);
        p->quit = true;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
        pthread_join(p->thread, NULL);
        pthread_cond_destroy(&p->cv);
        pthread_mutex_destroy(&p->mu);
    }
    for (int i = 0; i < 2; i++)
        if (p->filled[i])
            seq_frame_free(&p->slot[i]);
    free(p);
    *pp = NULL;
}
