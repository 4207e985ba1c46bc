/* fuzz_model.c: libFuzzer harness for the model file loader (upf_models_load): a model file
 * is untrusted input like an image. On success the set must hold 1..7 models whose info
 * reads back; on failure the context must carry a message. */
#include <stdio.h>
#include <stdlib.h>

#include "upframe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static _Noreturn void fail(const char *what)
{
    fprintf(stderr, "fuzz invariant broken: %s\n", what);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static upf_context *ctx;
    if (!ctx && !(ctx = upf_context_create(upf_context_params(.threads = 1))))
        fail("no context");
    upf_models *m = upf_models_load(ctx, data, size);
    const char *msg = NULL;
    upf_result r = upf_context_last_error(ctx, &msg);
    if (!m) {
        if (r == UPF_OK || !msg || !msg[0])
            fail("a refused file left no error message");
        return 0;
    }
    int n = upf_models_count(m);
    if (n < 1 || n > 7)
        fail("a loaded set holds 1..7 models");
    for (int i = 0; i < n; i++) {
        upf_model_info info;
        if (upf_models_info(m, i, &info) != UPF_OK || info.step < 4 || info.step > 10 ||
            !info.provenance)
            fail("a loaded model's info reads back");
    }
    upf_models_destroy(&m);
    return 0;
}
