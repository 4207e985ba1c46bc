/* fuzz_sidecar.c: libFuzzer harness for the sequence sidecar reader (seq_parse_sidecar, with its
 * JSON parser): on success the sidecar must hold a usable size, jitter and camera; on failure a
 * message naming the input. */
#include "fuzz_common.h"
#include "sequence/sequence.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    seq_sidecar s;
    char err[IMAGEIO_ERR_SIZE] = "";
    upf_result r = seq_parse_sidecar((const char *)data, size, FUZZ_NAME, &s, err);
    if (r != UPF_OK) {
        if (strncmp(err, FUZZ_NAME ": ", strlen(FUZZ_NAME ": ")) != 0)
            fuzz_fail("error message does not start with the input's name");
        if (r != UPF_ERROR_BAD_DATA && r != UPF_ERROR_OUT_OF_MEMORY)
            fuzz_fail("unexpected error code for a bad sidecar");
        return 0;
    }
    if (s.width < 1 || s.height < 1 || s.width > UPF_MAX_IMAGE_DIMENSION ||
        s.height > UPF_MAX_IMAGE_DIMENSION)
        fuzz_fail("a size outside 1..16384");
    if (!(fabs(s.jitter_x) <= 1 && fabs(s.jitter_y) <= 1))
        fuzz_fail("a jitter outside -1..1");
    if (!s.has_camera && !s.has_projection)
        fuzz_fail("no camera");
    if (s.has_camera && (!(s.camera.near_plane > 0) || !(s.camera.fov_y > 0) ||
                         (!s.camera.far_infinite && !(s.camera.far_plane > s.camera.near_plane))))
        fuzz_fail("a camera the engine cannot take");
    for (int i = 0; i < 16; i++)
        if (!isfinite(s.projection[i]) || !isfinite(s.view_projection[i]) ||
            !isfinite(s.prev_view_projection[i]))
            fuzz_fail("a matrix entry not finite");
    if (!(s.motion_scale_x != 0 && s.motion_scale_y != 0) || s.frame_time_ms < 0 ||
        s.color_encoding < 0 || s.color_encoding > 2 || s.jitter_phases < 0)
        fuzz_fail("an optional field out of range");
    return 0;
}
