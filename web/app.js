/* app.js: the page's controls. Reads the chosen picture with the browser's decoder (8 bits
 * per channel, no colour management), sends it to the worker (worker.js) to upscale, shows
 * progress, before and after, the passes' pictures and the network's views (views.js), and
 * writes the result as a PNG (png.js) behind the download link.
 *
 * The page's contract with its test (tests/test_web.py): #image, #scale, #download (href: the
 * result), document.body.dataset.state = "done" | "error" (the message in #error), and
 * window.upframePage with the last window's values. */
"use strict";

const $ = (id) => document.getElementById(id);
const worker = new Worker("worker.js");
const pending = new Map();
let nextId = 1;

function call(cmd, args = {}, transfer = [], onProgress = null) {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject, onProgress });
    worker.postMessage({ cmd, id, ...args }, transfer);
  });
}

worker.onmessage = (e) => {
  const m = e.data, p = pending.get(m.id);
  if (!p) return;
  if (m.cmd === "progress") { if (p.onProgress) p.onProgress(m); return; }
  pending.delete(m.id);
  if (m.cmd === "error") p.reject(new Error(m.message)); else p.resolve(m);
};
worker.onerror = (e) => { e.preventDefault(); fail("the worker stopped: " + e.message); };

/* What the page holds. */
const page = window.upframePage = { input: null, result: null, models: null, tile: [0, 0],
                                    window: [0, 0], lastWindow: null, busy: false };

function setState(state) { document.body.dataset.state = state; }

function fail(message) {
  $("error").textContent = message;
  $("error").hidden = false;
  $("status").textContent = "Stopped: see the message below.";
  setState("error");
}

function clearError() { $("error").hidden = true; $("error").textContent = ""; }

/* ---- reading the picture ---------------------------------------------------------------- */

function kindOf(bytes) {
  const png = [137, 80, 78, 71, 13, 10, 26, 10];
  if (png.every((b, i) => bytes[i] === b)) return "PNG";
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "JPEG";
  return null;
}

async function decode(file) {
  const head = new Uint8Array(await file.slice(0, 8).arrayBuffer());
  const kind = kindOf(head);
  if (!kind) {
    const hex = Array.from(head, (b) => b.toString(16).padStart(2, "0")).join(" ");
    throw new Error(`${file.name}: not a PNG or JPEG file (its first bytes are ${hex || "none"}; ` +
                    "expected 89 50 4e 47 for PNG or ff d8 ff for JPEG)");
  }
  let bmp;
  try {
    bmp = await createImageBitmap(file, { colorSpaceConversion: "none", premultiplyAlpha: "none" });
  } catch (err) {
    throw new Error(`${file.name}: a ${kind} file the browser could not decode (damaged or ` +
                    `cut short?): ${err.message}`);
  }
  const canvas = new OffscreenCanvas(bmp.width, bmp.height);
  const g = canvas.getContext("2d");
  g.drawImage(bmp, 0, 0);
  const rgba = g.getImageData(0, 0, bmp.width, bmp.height).data;
  bmp.close();
  return { name: file.name, w: canvas.width, h: canvas.height, rgba };
}

/* The output size: the width asked for (height keeping the aspect), else the scale, rounded
 * as the CLI rounds (floor(x * scale + 0.5), tools/upframe/cli.c). */
function outputSize(w, h) {
  const width = parseInt($("width").value, 10);
  if (width > 0) return [width, Math.max(1, Math.floor(h * width / w + 0.5))];
  const s = parseFloat($("scale").value);
  if (!(s > 0)) throw new Error(`scale '${$("scale").value}': expected a number such as 2`);
  return [Math.floor(w * s + 0.5), Math.floor(h * s + 0.5)];
}

/* ---- the upscale ------------------------------------------------------------------------ */

async function upscale() {
  if (!page.input || page.busy) return;
  page.busy = true;
  clearError();
  setState("working");
  $("download").hidden = true;
  const { w, h, rgba, name } = page.input;
  try {
    const [outW, outH] = outputSize(w, h);
    if (outW < w || outH < h || outW > 4 * w || outH > 4 * h)
      throw new Error(`${name} is ${w}x${h}; ${outW}x${outH} is not 1 to 4 times as large on ` +
                      "each side (the spatial engine's range)");
    const sharpness = parseFloat($("sharpness").value);
    $("status").textContent = `Upscaling ${name}: ${w}x${h} to ${outW}x${outH}\u2026`;
    $("progress").value = 0;
    const copy = rgba.slice().buffer;
    const r = await call("upscale", { rgba: copy, w, h, outW, outH, sharpness, flags: 0 }, [copy],
                         (m) => {
                           $("progress").value = m.pass + 1;
                           $("status").textContent = `Upscaling ${name}: ${m.name} done ` +
                                                     `(${m.pass + 1} of ${m.of})`;
                         });
    r.outW = outW; r.outH = outH; r.sharpness = sharpness;
    r.out = new Uint8ClampedArray(r.rgba);
    page.result = r;
    const blob = await encodePng(r.out, outW, outH);
    const a = $("download");
    if (a.href) URL.revokeObjectURL(a.href);
    a.href = URL.createObjectURL(blob);
    a.download = name.replace(/\.[^.]*$/, "") + `-${outW}x${outH}.png`;
    a.textContent = `Download the PNG (${outW}x${outH}, ${(blob.size / 1e6).toFixed(1)} MB)`;
    a.hidden = false;
    $("status").textContent = `${name}: ${w}x${h} to ${outW}x${outH} in ${r.ms.toFixed(0)} ms ` +
                              `(model of step ${r.step}, ratio ${(12 / r.step).toFixed(3)})`;
    $("times").textContent = "Time per pass (ms): " + ["convert", "edges", "weights", "blend",
      "detail", "compose"].map((n, i) => `${n} ${(r.passMs[i] || 0).toFixed(1)}`).join(", ");
    document.body.dataset.ms = r.ms.toFixed(1);
    showCompare();
    showPasses(r.pictures, r.model);
    page.tile = [Math.min(page.tile[0], r.tilesX - 1), Math.min(page.tile[1], r.tilesY - 1)];
    await Views.showNetwork(page, call);
    setState("done");
  } catch (err) {
    fail(err.message);
  } finally {
    page.busy = false;
  }
}

/* ---- before and after ------------------------------------------------------------------- */

function putPixels(canvas, rgba, w, h) {
  canvas.width = w;
  canvas.height = h;
  canvas.getContext("2d").putImageData(new ImageData(new Uint8ClampedArray(rgba), w, h), 0, 0);
}

function showCompare() {
  const r = page.result, inp = page.input;
  putPixels($("before"), inp.rgba, inp.w, inp.h);
  putPixels($("after"), r.out, r.outW, r.outH);
  layoutCompare();
}

function layoutCompare() {
  const r = page.result;
  if (!r) return;
  const zoom = $("zoom").value;
  const box = $("compare"), inner = $("compare-inner");
  const width = zoom === "fit" ? box.clientWidth : r.outW * parseFloat(zoom);
  const height = width * r.outH / r.outW;
  inner.style.width = width + "px";
  inner.style.height = height + "px";
  for (const c of [$("before"), $("after")]) { c.style.width = width + "px"; c.style.height = height + "px"; }
  $("after").style.clipPath = `inset(0 0 0 ${$("split").value}%)`;
}

function showPasses(pictures, model) {
  for (const name of ["edges", "weights", "detail"]) {
    const p = pictures[name], c = $("pass-" + name), fig = c.parentElement;
    let note = fig.querySelector(".note");
    if (!note) {
      note = document.createElement("p");
      note.className = "note";
      fig.insertBefore(note, c);
    }
    c.hidden = !p;
    note.hidden = !!p;
    note.textContent = `Not run for this picture: the model chosen (step ${page.result.step}, ` +
                       `flags ${model.flags}) skips SMAA, as its flag no-smaa asks.`;
    if (p) putPixels(c, p.rgba, p.w, p.h);
  }
}

/* ---- models ----------------------------------------------------------------------------- */

async function loadModels(data) {
  const transfer = data ? [data] : [];
  page.models = await call("models", { data }, transfer);
  Views.showBlocks(page.models);
}

/* ---- wiring ----------------------------------------------------------------------------- */

async function choose(file) {
  if (!file) return;
  clearError();
  setState("working");
  try {
    page.input = await decode(file);
  } catch (err) {
    page.input = null;
    fail(err.message);
    return;
  }
  await upscale();
}

$("image").addEventListener("change", () => choose($("image").files[0]));
$("run").addEventListener("click", upscale);
for (const id of ["scale", "width"]) $(id).addEventListener("change", upscale);
$("sharpness").addEventListener("input", () => { $("sharpness-value").textContent = $("sharpness").value; });
$("sharpness").addEventListener("change", upscale);
$("split").addEventListener("input", layoutCompare);
$("zoom").addEventListener("change", layoutCompare);
window.addEventListener("resize", layoutCompare);
$("model").addEventListener("change", async () => {
  const f = $("model").files[0];
  if (!f) return;
  clearError();
  try { await loadModels(await f.arrayBuffer()); await upscale(); }
  catch (err) { fail(`${f.name}: ${err.message}`); }
});
$("model-builtin").addEventListener("click", async () => {
  clearError();
  try { await loadModels(null); await upscale(); } catch (err) { fail(err.message); }
});

const drop = $("drop");
drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
drop.addEventListener("dragleave", () => drop.classList.remove("over"));
drop.addEventListener("drop", (e) => {
  e.preventDefault();
  drop.classList.remove("over");
  choose(e.dataTransfer.files[0]);
});

Views.wire(page, call);
loadModels(null).then(() => {
  $("run").disabled = false;
  $("status").textContent = "Ready: choose a picture.";
  setState("ready");
}, (err) => fail("the library did not load: " + err.message));
