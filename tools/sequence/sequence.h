/* sequence.h: reading a frame sequence for the temporal engine: the folder layout `upframe
 * render` writes and docs/TEMPORAL.md documents for other renderers.
 *
 *   NNNN.json        the sidecar: size, jitter, camera (projection or near/far/fov/depth),
 *                    view matrices, cut, frame rate, and optional fields (docs/TEMPORAL.md)
 *   NNNN.color.pfm   colour, linear light (or NNNN.color.png, 8/16-bit sRGB)
 *   NNNN.depth.pfm   depth, grey PFM
 *   NNNN.motion.pfm  motion vectors in R and G (optional when the sidecar has the matrices)
 *
 * NNNN is the frame number, four or more digits. Files come through a seq_fs, so the same code
 * reads a folder (seq_fs_dir) or, in the fuzzer and tests, files held in memory. Every failure
 * is UPF_ERROR_BAD_DATA / _IO / _OUT_OF_MEMORY with a message in `err` (IMAGEIO_ERR_SIZE
 * bytes) naming the file, what is wrong and what was expected. */
#ifndef UPF_SEQUENCE_H
#define UPF_SEQUENCE_H

#include <stdbool.h>
#include <stddef.h>

#include "imageio/image_io.h"
#include "upframe.h"

#define SEQ_MAX_FRAMES 100000
#define SEQ_MAX_SIDECAR (256 * 1024) /* bytes of a sidecar */
#define SEQ_NAME_MAX 256

/* Where the files are. */
typedef struct seq_fs {
    void *priv;
    /* Calls add(list, name) for every file name; returns UPF_OK or an error with a message. */
    upf_result (*list)(void *priv, void (*add)(void *list, const char *name), void *list,
                       char *err);
    /* Reads file `name` whole (at most max bytes; *data freed with free()). A missing file is
     * UPF_ERROR_IO with *missing set. */
    upf_result (*read)(void *priv, const char *name, size_t max, void **data, size_t *size,
                       bool *missing, char *err);
    const char *label;               /* the folder, for messages */
} seq_fs;

/* A folder on disk. `dir` must outlive the seq_fs. */
seq_fs seq_fs_dir(const char *dir);

/* The frames of a sequence, ascending: every NNNN with a NNNN.json (the stem as written, so
 * "0007" and "00007" are told apart; two stems of one number are an error). */
typedef struct seq_list {
    long *number;
    char (*stem)[16];
    int count;
} seq_list;

upf_result seq_scan(const seq_fs *fs, seq_list *list, char *err);
void seq_list_free(seq_list *list);

/* What a sidecar says. */
typedef struct seq_sidecar {
    int width, height;
    double jitter_x, jitter_y;
    bool has_camera;                  /* near, far/infinite, fov_y and depth were given */
    upf_camera camera;
    bool has_projection;
    double projection[16];
    upf_clip_depth clip_depth;
    bool has_matrices;                /* view-projections of this and the previous frame */
    double view_projection[16], prev_view_projection[16];
    bool reset;                       /* "cut" or "reset" true */
    double frame_time_ms;             /* from "frame_time_ms" or "fps"; 0: not given */
    int jitter_phases;                /* 0: not given */
    bool motion_uv;                   /* "motion_units": "uv" */
    double motion_scale_x, motion_scale_y; /* "motion_scale", default 1, 1 */
    int color_encoding;               /* 0 linear, 1 srgb, 2 sqrt ("color_encoding") */
    double exposure, pre_exposure;    /* 0: not given */
} seq_sidecar;

/* Parses a sidecar's text; `name` is used in messages. */
upf_result seq_parse_sidecar(const char *text, size_t size, const char *name, seq_sidecar *out,
                             char *err);

/* One frame, read and checked: the sidecar, the colour (RGBA32F from a PFM, RGBA8/16 sRGB from a
 * PNG), the depth (R32F) and the motion (RG32F; has_motion false when there is no file). Every
 * image is the sidecar's size. */
typedef struct seq_frame {
    long number;
    seq_sidecar side;
    imageio_image color, depth, motion;
    bool has_motion;
} seq_frame;

/* `limits` (may be NULL) bound the images. On failure nothing is left allocated. */
upf_result seq_read_frame(const seq_fs *fs, const seq_list *list, int index,
                          const imageio_limits *limits, seq_frame *frame, char *err);
void seq_frame_free(seq_frame *frame);

/* o = a b for 4x4 row-major matrices (a view-projection from a projection and a view). */
void seq_mat4_mul(const double *a, const double *b, double *o);

#endif /* UPF_SEQUENCE_H */
