/* worker.js: the page's Web Worker. Loads the library (upframe.js + upframe.wasm, built by
 * web/CMakeLists.txt from the library's own sources and web/upf_web.c) and does every
 * computation off the page's thread, so the page never freezes: the upscale pass by pass
 * (posting progress after each), the pictures of the passes, the window's six stages, the
 * model's weights and the tile's reconstruction steps.
 *
 * Messages in: {cmd, id, ...}; out: {cmd: "progress" | "reply" | "error", id, ...}. */
"use strict";
importScripts("upframe.js");

const PASSES = ["convert", "edges", "weights", "blend", "detail", "compose"];
let M = null, S = 0;                     /* the module and the session (upfw_session *) */
const ready = createUpframe().then((m) => {
  M = m;
  S = M._upfw_create();
  if (!S) throw new Error("the library did not start (upfw_create failed)");
});

function lastError() { return M.UTF8ToString(M._upfw_error(S)); }

function check(rc, what) {
  if (rc !== 0) throw new Error(what + ": " + lastError());
}

function copyIn(bytes) {
  const p = M._malloc(bytes.length || 1);
  if (!p) throw new Error("out of memory for " + bytes.length + " bytes");
  M.HEAPU8.set(bytes, p);
  return p;
}

function withInts(n, fn) {
  const p = M._malloc(4 * n);
  try { return fn(p, () => Array.from(M.HEAP32.subarray(p >> 2, (p >> 2) + n))); }
  finally { M._free(p); }
}

function modelInfo(index) {
  return {
    step: M._upfw_model_step_of(S, index),
    strength: M._upfw_model_strength(S, index),
    flags: M.UTF8ToString(M._upfw_model_flags(S, index)),
    provenance: M.UTF8ToString(M._upfw_model_provenance(S, index)),
  };
}

/* The model set: the built-in one (data null) or a file of the user's; its blocks. */
function loadModels(msg) {
  let bytes;
  if (msg.data) {
    bytes = new Uint8Array(msg.data);
    const p = copyIn(bytes);
    try { check(M._upfw_load_models(S, p, bytes.length), "the model file"); }
    finally { M._free(p); }
  } else {
    check(M._upfw_load_models(S, 0, 0), "the built-in models");
    withInts(1, (p, read) => {
      const at = M._upfw_builtin_file(p);
      bytes = M.HEAPU8.slice(at, at + read()[0]);
    });
  }
  const models = [];
  for (let i = 0; i < M._upfw_models_count(S); i++) models.push(modelInfo(i));
  const p = copyIn(bytes), max = 64;
  const blocks = [];
  try {
    withInts(4 * max, (b, read) => {
      const n = M._upfw_file_blocks(S, p, bytes.length, b, max);
      if (n < 0) throw new Error("the model file: " + lastError());
      const v = read();
      for (let i = 0; i < Math.min(n, max); i++)
        blocks.push({ kind: v[4 * i], model: v[4 * i + 1], offset: v[4 * i + 2], size: v[4 * i + 3] });
    });
  } finally { M._free(p); }
  return { models, blocks, size: bytes.length, version: new DataView(bytes.buffer).getUint32(8, true) };
}

function debugPicture(pass) {
  return withInts(2, (p, read) => {
    const px = M._upfw_debug_picture(S, pass, p, p + 4);
    if (!px) return null;
    const [w, h] = read();
    const rgba = M.HEAPU8.slice(px, px + w * h * 4);
    M._free(px);
    return { w, h, rgba };
  });
}

function upscale(msg) {
  const rgba = new Uint8Array(msg.rgba);
  const p = copyIn(rgba);
  try {
    check(M._upfw_begin(S, p, msg.w, msg.h, msg.outW, msg.outH, msg.sharpness, msg.flags >>> 0),
          "upscale");
  } finally { M._free(p); }
  const passMs = [];
  const t0 = performance.now();
  withInts(1, (done, read) => {
    for (let k = 0; k < PASSES.length; k++) {
      const t = performance.now();
      check(M._upfw_run_pass(S, done), PASSES[k]);
      passMs.push(performance.now() - t);
      postMessage({ cmd: "progress", id: msg.id, pass: k, name: PASSES[k], of: PASSES.length });
      if (read()[0]) break;
    }
  });
  const ms = performance.now() - t0;
  const at = M._upfw_output(S);
  const out = M.HEAPU8.slice(at, at + msg.outW * msg.outH * 4);
  const pictures = {};
  for (const [name, pass] of [["edges", 1], ["weights", 2], ["detail", 4]]) pictures[name] = debugPicture(pass);
  const tiles = withInts(2, (q, read) => { check(M._upfw_tiles(S, q, q + 4), "tiles"); return read(); });
  const wp = M._upfw_model_weights(S, -1);
  const weights = M.HEAPF32.slice(wp >> 2, (wp >> 2) + 6144);
  return { rgba: out.buffer, ms, passMs, step: M._upfw_model_step(S), model: modelInfo(-1),
           weights, pictures, tilesX: tiles[0], tilesY: tiles[1] };
}

function windowStages(msg) {
  const out = M._malloc(4 * (8 * 256 + 144));
  try {
    check(M._upfw_window(S, msg.tx, msg.ty, msg.wx, msg.wy, out, out + 4 * 8 * 256), "the window");
    const all = M.HEAPF32.slice(out >> 2, (out >> 2) + 8 * 256 + 144);
    return { values: all.subarray(0, 8 * 256), block: all.subarray(8 * 256) };
  } finally { M._free(out); }
}

/* The tile's output rectangle in each of the three reconstruction steps (cached per run). */
let steps = null;
function tileSteps(msg) {
  if (!steps || steps.sharpness !== msg.sharpness) {
    const p = M._upfw_steps(S, msg.sharpness);
    if (!p) throw new Error("the reconstruction steps: " + lastError());
    steps = { sharpness: msg.sharpness, p };
  }
  const { x, y, w, h, outW, outH } = msg;
  const pic = outW * outH * 4, crops = [];
  for (let k = 0; k < 3; k++) {
    const crop = new Uint8Array(w * h * 4);
    for (let r = 0; r < h; r++) {
      const from = steps.p + k * pic + ((y + r) * outW + x) * 4;
      crop.set(M.HEAPU8.subarray(from, from + w * 4), r * w * 4);
    }
    crops.push(crop);
  }
  return { crops };
}

const handlers = { models: loadModels, upscale, window: windowStages, steps: tileSteps };

onmessage = async (e) => {
  const msg = e.data;
  try {
    await ready;
    if (msg.cmd === "upscale") steps = null;
    const reply = handlers[msg.cmd](msg);
    const transfer = reply && reply.rgba ? [reply.rgba] : [];
    postMessage({ cmd: "reply", id: msg.id, ...reply }, transfer);
  } catch (err) {
    postMessage({ cmd: "error", id: msg.id, message: String(err && err.message ? err.message : err) });
  }
};
