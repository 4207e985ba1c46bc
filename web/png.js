/* png.js: writes RGBA8 pixels as a PNG file (ISO/IEC 15948: signature, IHDR, sRGB, IDAT, IEND),
 * RGB when every alpha is 255 and RGBA otherwise, as the CLI's writer does (tools/imageio).
 * The pixels go in as they are, so the download holds exactly the library's output: a canvas's
 * own PNG export would premultiply alpha on the way. IDAT's zlib stream comes from the
 * browser's CompressionStream("deflate") (RFC 1950); rows use filter 0 (none). */
"use strict";

const PNG_CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function pngCrc(bytes) {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = PNG_CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function pngChunk(type, data) {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, pngCrc(out.subarray(4, 8 + data.length)));
  return out;
}

async function pngZlib(raw) {
  const stream = new Blob([raw]).stream().pipeThrough(new CompressionStream("deflate"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/* Returns a Blob of type image/png. */
async function encodePng(rgba, width, height) {
  let opaque = true;
  for (let i = 3; i < rgba.length; i += 4) if (rgba[i] !== 255) { opaque = false; break; }
  const channels = opaque ? 3 : 4, rowBytes = width * channels;
  const raw = new Uint8Array((rowBytes + 1) * height);
  for (let y = 0; y < height; y++) {
    let o = y * (rowBytes + 1) + 1, p = y * width * 4;   /* byte 0 of a row: filter 0 */
    if (opaque) {
      for (let x = 0; x < width; x++, p += 4, o += 3) {
        raw[o] = rgba[p]; raw[o + 1] = rgba[p + 1]; raw[o + 2] = rgba[p + 2];
      }
    } else {
      raw.set(rgba.subarray(p, p + rowBytes), o);
    }
  }
  const ihdr = new Uint8Array(13);
  const v = new DataView(ihdr.buffer);
  v.setUint32(0, width);
  v.setUint32(4, height);
  ihdr[8] = 8;                       /* bit depth */
  ihdr[9] = opaque ? 2 : 6;          /* colour type: RGB or RGBA */
  const signature = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]);
  return new Blob([signature, pngChunk("IHDR", ihdr), pngChunk("sRGB", new Uint8Array([0])),
                   pngChunk("IDAT", await pngZlib(raw)), pngChunk("IEND", new Uint8Array(0))],
                  { type: "image/png" });
}
