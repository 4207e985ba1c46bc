/* upf_web.h: the web page's entry points (web/upf_web.c; docs/WEB.md). Not installed: the
 * page's worker (web/worker.js) calls them through the WebAssembly module's exports, and
 * tests/test_web_ref.c natively. */
#ifndef UPF_WEB_H
#define UPF_WEB_H

#include <stddef.h>
#include <stdint.h>

typedef struct upfw_session upfw_session;

upfw_session *upfw_create(void);
/* The session's context (the native checker lowers its CPU flags to the plain C kernels). */
struct upf_context *upfw_context(upfw_session *s);
void upfw_destroy(upfw_session *s);
const char *upfw_error(const upfw_session *s);
int upfw_load_models(upfw_session *s, const void *data, size_t size);
int upfw_begin(upfw_session *s, const uint8_t *rgba, int w, int h, int out_w, int out_h,
               float sharpness, unsigned flags);
int upfw_run_pass(upfw_session *s, int *done);
const uint8_t *upfw_output(const upfw_session *s);
int upfw_model_step(const upfw_session *s);
uint8_t *upfw_debug_picture(upfw_session *s, int pass, int *w, int *h);
int upfw_models_count(const upfw_session *s);
const float *upfw_model_weights(const upfw_session *s, int index);
int upfw_model_step_of(const upfw_session *s, int index);
double upfw_model_strength(const upfw_session *s, int index);
const char *upfw_model_flags(upfw_session *s, int index);
const char *upfw_model_provenance(const upfw_session *s, int index);
int upfw_tiles(upfw_session *s, int *tiles_x, int *tiles_y);
int upfw_window(upfw_session *s, int tx, int ty, int wx, int wy, float *out, float *block);
const uint8_t *upfw_steps(upfw_session *s, float sharpness);
int upfw_file_blocks(upfw_session *s, const uint8_t *data, size_t size, int *blocks, int max);
const uint8_t *upfw_builtin_file(size_t *size);

#endif /* UPF_WEB_H */
