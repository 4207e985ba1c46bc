/* engine_memory.h: the bytes an engine will take, known before it is made at full size (for
 * the engines without a upf_*_memory call: temporal, interpolate). The engine is made at two
 * small scales of its sizes in a context whose allocator counts, and its bytes at full size
 * extrapolated from them, affine in the pixel count (its surfaces are planes of its sizes plus
 * fixed tables); made at full size when that is small, so then the count is exact.
 * tests/test_engine_memory.c checks the estimate against the count at full size. */
#ifndef UPF_ENGINE_MEMORY_H
#define UPF_ENGINE_MEMORY_H

#include <stddef.h>

#include "upframe.h"

/* Makes the engine with every size multiplied by `scale` (0 < scale <= 1; sizes rounded, at
 * least 1) in `ctx`; NULL on failure. `destroy` frees what `make` returned. */
typedef void *(*engine_memory_make)(upf_context *ctx, double scale, void *priv);
typedef void (*engine_memory_destroy)(void *engine);

/* *bytes: the engine's bytes at scale 1, whose largest plane has `pixels` pixels. Fails (with
 * the library's result) when the engine cannot be made even small: its params are wrong. */
upf_result engine_memory_bytes(engine_memory_make make, engine_memory_destroy destroy,
                               void *priv, double pixels, double *bytes);

/* The bytes the engine takes when made at `scale` 1, counted (it is allocated: for tests). */
upf_result engine_memory_counted(engine_memory_make make, engine_memory_destroy destroy,
                                 void *priv, double *bytes);

#endif /* UPF_ENGINE_MEMORY_H */
