"""png_write.py: an 8-bit RGB PNG writer for the test scripts (no imaging library needed)."""
import struct
import zlib


def write_png(path, w, h, rgb=None):
    """An 8-bit RGB PNG of w x h pixels, rgb(x, y) -> (r, g, b) (black without it)."""
    if rgb is None:
        raw = b"".join(b"\0" + bytes(3 * w) for _ in range(h))
    else:
        raw = b"".join(b"\0" + bytes(c for x in range(w) for c in rgb(x, y)) for y in range(h))

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data +
                struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
