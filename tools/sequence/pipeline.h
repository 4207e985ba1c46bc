/* pipeline.h: a frame loop's I/O overlapped with its work. While the caller works on frame k,
 * one worker thread writes frame k-1's output and then reads frame k+1, so reading and
 * writing files hide behind the engine. Memory is bounded: two frames read and two outputs
 * at most. Results come in the serial order: frame k's read error (or an earlier frame's
 * write error) is returned when the caller asks for frame k, and the files written are the
 * same, in the same order, as in a serial loop. With `overlap` false it is that serial loop
 * (read, work, write, one at a time, on the caller's thread).
 *
 * The loop:
 *     seq_pipe *p = seq_pipe_start(&io, count, overlap);
 *     for (k = 0; k < count; k++) {
 *         const seq_frame *f; upf_image *out;
 *         if ((rc = seq_pipe_next(p, &f)) != 0) break;   // frame k, read
 *         out = ...k's output buffer: one of two, alternating (k % 2)...;
 *         ...work on f into out...; on an error: break
 *         seq_pipe_put(p, out);                           // written behind
 *     }
 *     rc = rc ? rc : seq_pipe_finish(p);                  // the last write
 *     seq_pipe_stop(&p);                                  // no I/O in flight after this
 * The output of frame k is being written until seq_pipe_next returns frame k + 2 (or
 * seq_pipe_finish returns): the caller alternates two buffers. */
#ifndef UPF_SEQ_PIPELINE_H
#define UPF_SEQ_PIPELINE_H

#include <stdbool.h>

#include "sequence/sequence.h"

typedef struct seq_pipe_io {
    void *user;
    /* Reads frame k into *frame; 0, or an exit code after printing why (with the file's name). */
    int (*read)(void *user, int k, seq_frame *frame);
    /* Writes frame k's output; 0, or an exit code after printing why. */
    int (*write)(void *user, int k, const upf_image *out);
} seq_pipe_io;

typedef struct seq_pipe seq_pipe;

/* NULL when out of memory or no thread could start (the caller may then run overlap false). */
seq_pipe *seq_pipe_start(const seq_pipe_io *io, int count, bool overlap);

/* The next frame, read: 0 and *frame (the pipe's, valid until the next call), or the exit code
 * of its read or of an earlier frame's write. */
int seq_pipe_next(seq_pipe *p, const seq_frame **frame);

/* The current frame's output, to be written: the image (its description) is copied, its
 * pixels stay the caller's buffer (see above). */
int seq_pipe_put(seq_pipe *p, const upf_image *out);

/* Waits for every write; the exit code of the first that failed, or 0. */
int seq_pipe_finish(seq_pipe *p);

/* Waits for the I/O in flight, frees the frames read and the pipe. */
void seq_pipe_stop(seq_pipe **p);

#endif
