/* views.js: the page's views of the network, drawn from what the worker computed with the
 * library (worker.js, web/upf_web.c): the model file's blocks, the tile and window picker, the
 * window's six stages, the model's 24 matrices (the hovered stage's row lit) and the tile at
 * each step of the reconstruction. Values are drawn amber (positive) and teal (negative), each
 * picture scaled to its own largest magnitude, as in the NDSR article's views. */
"use strict";

const Views = (() => {
  const $ = (id) => document.getElementById(id);
  const AMBER = [255, 176, 32], TEAL = [0, 176, 160], DARK = [17, 17, 17];
  const STAGE_NAMES = ["window", "stage 1", "stage 2", "stage 3", "stage 4", "stage 5", "stage 6"];

  /* values (n x n, row-major) into a canvas, `scale` screen pixels a value. */
  function drawSigned(canvas, values, n, scale) {
    let max = 0;
    for (const v of values) max = Math.max(max, Math.abs(v));
    canvas.width = n;
    canvas.height = n;
    canvas.style.width = canvas.style.height = n * scale + "px";
    const img = new ImageData(n, n);
    for (let i = 0; i < n * n; i++) {
      const t = max > 0 ? Math.min(1, Math.abs(values[i]) / max) : 0;
      const c = values[i] >= 0 ? AMBER : TEAL;
      for (let k = 0; k < 3; k++) img.data[4 * i + k] = Math.round(DARK[k] + (c[k] - DARK[k]) * t);
      img.data[4 * i + 3] = 255;
    }
    canvas.getContext("2d").putImageData(img, 0, 0);
    return max;
  }

  function figure(parent, caption, cls) {
    const f = document.createElement("figure");
    if (cls) f.className = cls;
    const c = document.createElement("canvas");
    const cap = document.createElement("figcaption");
    cap.textContent = caption;
    f.append(c, cap);
    parent.append(f);
    return [f, c, cap];
  }

  /* ---- the model file's blocks ---- */

  function blockText(models, b) {
    const m = models.models[b.model];
    const at = `bytes ${b.offset}..${b.offset + b.size - 1}`;
    switch (b.kind) {
      case 0: return `Header (${at}): the magic "UPFMODEL", version ${models.version}, ` +
                     `${models.models.length} models.`;
      case 1: return `Model ${b.model + 1}'s header (${at}): step ${m.step} (ratio ` +
                     `${(12 / m.step).toFixed(3)}), flags ${m.flags}, 6 stages of 4 16x16 ` +
                     `matrices, detail strength ${m.strength}.`;
      case 2: return `Model ${b.model + 1}'s provenance (${at}): ${m.provenance}`;
      case 3: {
        const stage = Math.round((b.offset - models.blocks.find((x) => x.kind === 3 &&
                      x.model === b.model).offset) / b.size) + 1;
        return `Model ${b.model + 1}, stage ${stage}'s weights (${at}): the matrices A, B, C, D, ` +
               "256 fp16 values each, row by row.";
      }
      default: return `Checksum (${at}): CRC-32 of every byte before it.`;
    }
  }

  function showBlocks(models) {
    const box = $("blocks");
    box.textContent = "";
    for (const b of models.blocks) {
      const el = document.createElement("button");
      el.type = "button";
      el.setAttribute("role", "listitem");
      el.className = "block kind" + b.kind;
      el.style.flexGrow = Math.max(1, Math.log2(b.size) - 3);
      el.textContent = ["H", "M" + (b.model + 1), "P", "S", "C"][b.kind];
      const text = blockText(models, b);
      el.setAttribute("aria-label", text);
      const show = () => { $("block-info").textContent = text; };
      el.addEventListener("mouseenter", show);
      el.addEventListener("focus", show);
      box.append(el);
    }
    $("block-info").textContent = `${models.size} bytes, ${models.models.length} models ` +
                                  `(steps ${models.models.map((m) => m.step).join(", ")}).`;
  }

  /* ---- tile and window picker ---- */

  let page = null, call = null;

  function tileRect() {
    const s = page.result.step, [tx, ty] = page.tile;
    return { x: 4 * s * tx, y: 4 * s * ty, size: 4 * s };
  }

  function drawTiles() {
    const c = $("tiles"), inp = page.input, r = tileRect();
    c.width = inp.w;
    c.height = inp.h;
    const g = c.getContext("2d");
    g.putImageData(new ImageData(new Uint8ClampedArray(inp.rgba), inp.w, inp.h), 0, 0);
    /* the tile enlarged (before the outline goes on), with its windows' s x s blocks */
    const z = $("tile-zoom"), scale = 6, s = page.result.step;
    z.width = z.height = r.size * scale;
    const gz = z.getContext("2d");
    gz.imageSmoothingEnabled = false;
    gz.drawImage(c, r.x, r.y, r.size, r.size, 0, 0, z.width, z.height);
    g.lineWidth = Math.max(2, inp.w / 300);
    g.strokeStyle = "#ffb020";
    g.strokeRect(r.x, r.y, r.size, r.size);
    const [wx, wy] = page.window;
    gz.strokeStyle = "rgba(255,255,255,0.5)";
    gz.lineWidth = 1;
    for (let k = 1; k < 4; k++) {
      gz.beginPath(); gz.moveTo(k * s * scale, 0); gz.lineTo(k * s * scale, z.height); gz.stroke();
      gz.beginPath(); gz.moveTo(0, k * s * scale); gz.lineTo(z.width, k * s * scale); gz.stroke();
    }
    gz.strokeStyle = "#ffb020";
    gz.lineWidth = 3;
    gz.strokeRect(wx * s * scale, wy * s * scale, s * scale, s * scale);
    /* the window's 16x16 luma, centred on its block: floor((16 - s) / 2) pixels before it */
    const border = Math.floor((16 - s) / 2);
    gz.setLineDash([6, 4]);
    gz.lineWidth = 2;
    gz.strokeRect((wx * s - border) * scale, (wy * s - border) * scale, 16 * scale, 16 * scale);
    gz.setLineDash([]);
    $("tile-info").textContent = `Tile (${page.tile[0]}, ${page.tile[1]}): input pixels ` +
      `${r.x}..${r.x + r.size - 1} across, ${r.y}..${r.y + r.size - 1} down; window ` +
      `(${wx}, ${wy}) is centred on the ${s}x${s} block at (${r.x + s * wx}, ${r.y + s * wy}).`;
    for (const b of $("windows").children)
      b.setAttribute("aria-pressed", String(+b.dataset.wx === wx && +b.dataset.wy === wy));
  }

  function buildWindowButtons() {
    const box = $("windows");
    box.textContent = "";
    for (let wy = 0; wy < 4; wy++) {
      for (let wx = 0; wx < 4; wx++) {
        const b = document.createElement("button");
        b.type = "button";
        b.dataset.wx = wx;
        b.dataset.wy = wy;
        b.textContent = `${wx},${wy}`;
        b.setAttribute("aria-label", `window ${wx}, ${wy}`);
        b.addEventListener("click", () => { page.window = [wx, wy]; refresh(); });
        box.append(b);
      }
    }
  }

  /* ---- the window's stages, the matrices, the reconstruction ---- */

  function highlight(stage) {
    for (const row of $("matrices").querySelectorAll(".mrow"))
      row.classList.toggle("lit", +row.dataset.stage === stage);
  }

  async function showWindow() {
    const [tx, ty] = page.tile, [wx, wy] = page.window;
    const w = await call("window", { tx, ty, wx, wy });
    const box = $("stages");
    box.textContent = "";
    /* values: the window, stage 1's input, then the six stages' outputs */
    const pictures = [w.values.subarray(0, 256)];
    for (let k = 0; k < 6; k++) pictures.push(w.values.subarray((k + 2) * 256, (k + 3) * 256));
    pictures.forEach((v, i) => {
      const [f, c, cap] = figure(box, STAGE_NAMES[i], "stage");
      const max = drawSigned(c, v, 16, 7);
      cap.textContent = `${STAGE_NAMES[i]} (max ${max.toPrecision(3)})`;
      if (i > 0) {
        f.tabIndex = 0;
        f.addEventListener("mouseenter", () => highlight(i - 1));
        f.addEventListener("focus", () => highlight(i - 1));
      }
    });
    /* stage 6's top-left 12x12 times the strength against the engine's own detail map */
    const strength = page.result.model.strength;
    let inside = 0, equal = 0;
    for (let r = 0; r < 12; r++) {
      for (let c = 0; c < 12; c++) {
        const m = w.block[r * 12 + c];
        if (Number.isNaN(m)) continue;
        inside++;
        const v = w.values[7 * 256 + r * 16 + c];
        if (Math.fround(strength === 1 ? v : strength * v) === m) equal++;
      }
    }
    const ok = inside > 0 && equal === inside;
    document.body.dataset.windowCheck = ok ? "equal" : "differ";
    $("window-check").textContent = `Stage 6's top-left 12x12 (times the detail strength ` +
      `${strength}) against the engine's detail map here: ${equal} of ${inside} values equal.`;
    page.lastWindow = { tx, ty, wx, wy, values: Array.from(w.values), block: Array.from(w.block) };
  }

  function showMatrices() {
    const box = $("matrices"), wts = page.result.weights;
    box.textContent = "";
    for (let s = 0; s < 6; s++) {
      const row = document.createElement("div");
      row.className = "mrow";
      row.dataset.stage = s;
      const label = document.createElement("span");
      label.textContent = `stage ${s + 1}`;
      row.append(label);
      for (let m = 0; m < 4; m++) {
        const [, c] = figure(row, "ABCD"[m]);
        drawSigned(c, wts.subarray((s * 4 + m) * 256, (s * 4 + m + 1) * 256), 16, 4);
      }
      box.append(row);
    }
  }

  async function showSteps() {
    const r = page.result, t = tileRect();
    const x0 = Math.floor(t.x * r.outW / page.input.w), y0 = Math.floor(t.y * r.outH / page.input.h);
    const x1 = Math.min(r.outW, Math.ceil((t.x + t.size) * r.outW / page.input.w));
    const y1 = Math.min(r.outH, Math.ceil((t.y + t.size) * r.outH / page.input.h));
    const w = x1 - x0, h = y1 - y0;
    const sharp = r.sharpness > 0 ? r.sharpness : 1;
    const s = await call("steps", { x: x0, y: y0, w, h, outW: r.outW, outH: r.outH, sharpness: sharp });
    const box = $("steps");
    box.textContent = "";
    const f = r.model.flags;
    const base = f.includes("cubic-base") ? "Catmull-Rom in linear light"
               : f.includes("sqrt-lanczos-base") ? "Lanczos-3 on the sqrt values"
               : f.includes("srgb-lanczos-base") ? "Lanczos-3 on the sRGB values" : "bilinear";
    const names = [`base alone (${base}, the model's choice)`,
                   "detail map (this tile's 48x48)", "base + detail, squared to linear light",
                   `sharpened (sharpness ${sharp})`];
    const detail = r.pictures.detail;
    names.forEach((name, i) => {
      const [, c] = figure(box, name);
      if (i === 1) {
        const [tx, ty] = page.tile, dx = 48 * tx, dy = 48 * ty;
        const dw = Math.min(48, detail.w - dx), dh = Math.min(48, detail.h - dy);
        const crop = new Uint8ClampedArray(dw * dh * 4);
        for (let y = 0; y < dh; y++)
          crop.set(detail.rgba.subarray(((dy + y) * detail.w + dx) * 4, ((dy + y) * detail.w + dx + dw) * 4), y * dw * 4);
        c.width = dw; c.height = dh;
        c.getContext("2d").putImageData(new ImageData(crop, dw, dh), 0, 0);
      } else {
        c.width = w; c.height = h;
        c.getContext("2d").putImageData(new ImageData(new Uint8ClampedArray(s.crops[i === 0 ? 0 : i - 1]), w, h), 0, 0);
      }
      c.className = "pixelated";
    });
  }

  async function refresh() {
    drawTiles();
    await showWindow();
    await showSteps();
  }

  async function showNetwork(p, c) {
    page = p;
    call = c;
    showMatrices();
    await refresh();
  }

  function moveTile(dx, dy) {
    if (!page || !page.result) return;
    const r = page.result;
    page.tile = [Math.max(0, Math.min(r.tilesX - 1, page.tile[0] + dx)),
                 Math.max(0, Math.min(r.tilesY - 1, page.tile[1] + dy))];
    refresh().catch((err) => console.warn(err));
  }

  function wire(p, c) {
    page = p;
    call = c;
    buildWindowButtons();
    const canvas = $("tiles");
    canvas.addEventListener("click", (e) => {
      if (!page.result) return;
      const rect = canvas.getBoundingClientRect(), s = page.result.step;
      const x = (e.clientX - rect.left) * canvas.width / rect.width;
      const y = (e.clientY - rect.top) * canvas.height / rect.height;
      page.tile = [0, 0];
      moveTile(Math.floor(x / (4 * s)), Math.floor(y / (4 * s)));
    });
    canvas.addEventListener("keydown", (e) => {
      const d = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] }[e.key];
      if (!d) return;
      e.preventDefault();
      moveTile(d[0], d[1]);
    });
    $("matrices").addEventListener("mouseleave", () => highlight(-1));
  }

  return { showBlocks, showNetwork, wire };
})();
