#!/usr/bin/env python3
"""test_web.py: the web page's browser test (docs/WEB.md), run by ctest as `web_page`.

Builds the page with Emscripten (web/CMakeLists.txt, into BUILD/web), serves BUILD/web/site on
localhost, and drives Debian's Chromium, headless, through the DevTools protocol over a pipe
(--remote-debugging-pipe: NUL-separated JSON on file descriptors 3 and 4, no websocket). It
 - uploads a rendered game frame (`upframe render courtyard`), asks for 2x and checks that the
   download equals, bit for bit, the same entry points run natively on the plain C kernels
   (web_ref upscale), and reports how far it is from `upframe upscale --scale 2` (the CLI
   takes the AVX2 kernels where the CPU has them: the network's multiply-adds rounded once,
   docs/WEB.md bounds the difference and the test checks that bound);
 - checks that every view draws, that the chosen window's six stages equal the library's own
   for that window (web_ref window), after picking a window with a click and moving the tile
   with the keyboard, and that stage 6 equals the engine's detail map there (the page's check);
 - uploads a damaged PNG and a file that is no picture, and checks the page says so;
 - fails on any error that reaches the console (page or worker).
Exit 77 (skipped) only when Emscripten is absent and the build was configured without the web
page (-DUPF_WEB=OFF).

  test_web.py --source DIR --build DIR --upframe PATH --web-ref PATH [--require-web]
              [--screenshot OUT.png] [--mobile] [--frame WxH] [--timing N] [--web-build DIR]
              [--web-flag -DNAME=VALUE]
--timing N upscales the frame N more times in the page and prints each time (docs/WEB.md,
docs/PERFORMANCE.md); --screenshot saves the whole page after the checks of the views.
"""
import argparse
import base64
import functools
import http.server
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time

SKIP = 77


class Browser:
    """Chromium over --remote-debugging-pipe (the DevTools protocol, one JSON message per
    NUL-terminated chunk: fd 3 into the browser, fd 4 out of it)."""

    def __init__(self, chromium, profile):
        to_r, self.to_w = os.pipe()
        self.from_r, from_w = os.pipe()

        def fds():  # in the child: the pipe's ends as fds 3 and 4 (dup2 makes them inheritable)
            os.dup2(to_r, 3)
            os.dup2(from_w, 4)

        self.proc = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--remote-debugging-pipe", "--user-data-dir=" + profile,
             "--window-size=1280,2000", "about:blank"],
            preexec_fn=fds, close_fds=False, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        os.close(to_r)
        os.close(from_w)
        self.buf = b""
        self.next_id = 1
        self.events = []
        self.session = None

    def close(self):
        try:
            self.send("Browser.close", session=False)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def _read_message(self, deadline):
        while b"\0" not in self.buf:
            if time.time() > deadline:
                raise TimeoutError("no answer from Chromium")
            chunk = os.read(self.from_r, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed its pipe (it exited?)")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, params=None, session=True, timeout=60):
        mid = self.next_id
        self.next_id += 1
        msg = {"id": mid, "method": method, "params": params or {}}
        sid = self.session if session is True else session or None
        if sid:
            msg["sessionId"] = sid
        os.write(self.to_w, json.dumps(msg).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            m = self._read_message(deadline)
            if m.get("id") == mid:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            self._event(m)

    def _event(self, m):
        self.events.append(m)
        if m.get("method") == "Target.attachedToTarget":  # a worker: watch its console too
            sid = m["params"]["sessionId"]
            for method in ("Runtime.enable", "Log.enable"):
                os.write(self.to_w, json.dumps({"id": self.next_id, "method": method,
                                                "sessionId": sid}).encode() + b"\0")
                self.next_id += 1
            os.write(self.to_w, json.dumps({"id": self.next_id,
                                            "method": "Runtime.runIfWaitingForDebugger",
                                            "sessionId": sid}).encode() + b"\0")
            self.next_id += 1

    def pump(self, seconds):
        end = time.time() + seconds
        while time.time() < end:
            self.send("Runtime.evaluate", {"expression": "0"})
            time.sleep(0.05)

    def eval(self, expression, timeout=120):
        r = self.send("Runtime.evaluate", {"expression": expression, "awaitPromise": True,
                                           "returnByValue": True}, timeout=timeout)
        if "exceptionDetails" in r:
            raise RuntimeError(f"page: {expression[:80]}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def open(self, url, width=1280, mobile=False):
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)
        self.session = self.send("Target.attachToTarget", {"targetId": target["targetId"],
                                                           "flatten": True},
                                 session=False)["sessionId"]
        for method in ("Page.enable", "Runtime.enable", "Log.enable", "DOM.enable"):
            self.send(method)
        self.send("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": True,
                                           "flatten": True})
        self.send("Emulation.setDeviceMetricsOverride", {"width": width, "height": 2000,
                                                         "deviceScaleFactor": 1, "mobile": mobile})
        self.send("Page.navigate", {"url": url})

    def wait_state(self, states, timeout=240):
        end = time.time() + timeout
        while time.time() < end:
            s = self.eval("document.body ? document.body.dataset.state : ''")
            if s in states:
                return s
            time.sleep(0.1)
        raise TimeoutError(f"the page's state stayed '{s}' (waited for {states})")

    def upload(self, selector, path):
        doc = self.send("DOM.getDocument")
        node = self.send("DOM.querySelector", {"nodeId": doc["root"]["nodeId"],
                                               "selector": selector})["nodeId"]
        self.send("DOM.setFileInputFiles", {"nodeId": node, "files": [path]})

    def key(self, key, code):
        for kind in ("keyDown", "keyUp"):
            self.send("Input.dispatchKeyEvent", {"type": kind, "key": key, "code": code,
                                                 "windowsVirtualKeyCode": code_of(key)})

    def console_errors(self):
        out = []
        for m in self.events:
            p, meth = m.get("params", {}), m.get("method")
            if meth == "Runtime.exceptionThrown":
                out.append("exception: " + json.dumps(p["exceptionDetails"])[:400])
            elif meth == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append("console.error: " + json.dumps(p.get("args"))[:400])
            elif meth == "Log.entryAdded" and p["entry"].get("level") == "error":
                out.append("log: " + p["entry"].get("text", "")[:400])
        return out

    def screenshot(self, path):
        data = self.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})
        with open(path, "wb") as f:
            f.write(base64.b64decode(data["data"]))


def code_of(key):
    return {"ArrowLeft": 37, "ArrowUp": 38, "ArrowRight": 39, "ArrowDown": 40}.get(key, 0)


def serve(folder):
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def end_headers(self):
            self.send_header("Cache-Control", "no-store")
            super().end_headers()

    Quiet.extensions_map = dict(http.server.SimpleHTTPRequestHandler.extensions_map,
                                **{".wasm": "application/wasm", ".js": "text/javascript"})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                            functools.partial(Quiet, directory=folder))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}{r.stderr}")
    return r.stdout


def build_site(args):
    web = args.web_build or os.path.join(args.build, "web")
    env = dict(os.environ)
    env.setdefault("NODE_PATH", "/usr/share/nodejs")  # Debian's emcc finds its acorn there
    if not os.path.exists(os.path.join(web, "CMakeCache.txt")):
        run(["emcmake", "cmake", "-S", os.path.join(args.source, "web"), "-B", web,
             "-DUPF_WERROR=ON"] + args.web_flag, env=env)
    run(["cmake", "--build", web, "-j2"], env=env)
    return os.path.join(web, "site")


def check(cond, what):
    if not cond:
        raise AssertionError(what)
    print("ok:", what)


def float32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0] if x is not None else None


def cli_passes_ms(args, frame, threads):
    out = run([args.upframe, "upscale", frame, "-o", os.path.join(os.path.dirname(frame), "t.png"),
               "--scale", "2", "--threads", str(threads), "--json"])
    return json.loads(out)["files"][0]["passes_ms"]


def timing(args, browser, frame):
    """The 2x upscale's passes, N times each, taking turns: in the page (one Web Worker) and
    natively by the CLI on 1 thread and on every CPU. Prints each pass's fastest and the
    fastest and median totals (milliseconds)."""
    names = ["convert", "edges", "weights", "blend", "detail", "compose"]
    runs = {"page": [], "cli 1 thread": [], "cli all threads": []}
    for _ in range(args.timing):
        browser.eval("document.body.dataset.state = 'again'; document.getElementById('run').click()")
        browser.wait_state({"done", "error"})
        runs["page"].append(browser.eval("window.upframePage.result.passMs"))
        for key, threads in (("cli 1 thread", 1), ("cli all threads", 0)):
            p = cli_passes_ms(args, frame, threads)
            runs[key].append([p[n] for n in names])
    print("| where | " + " | ".join(names) + " | total (fastest) | total (median) |")
    print("|---" * (len(names) + 3) + "|")
    for key, rs in runs.items():
        best = [min(r[i] for r in rs) for i in range(len(names))]
        totals = sorted(sum(r) for r in rs)
        print(f"| {key} | " + " | ".join(f"{b:.1f}" for b in best) +
              f" | {totals[0]:.0f} | {totals[len(totals) // 2]:.0f} |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--upframe", required=True)
    ap.add_argument("--web-ref", required=True)
    ap.add_argument("--require-web", action="store_true")
    ap.add_argument("--chromium", default=shutil.which("chromium") or "chromium")
    ap.add_argument("--frame", default="480x270")
    ap.add_argument("--screenshot")
    ap.add_argument("--mobile", action="store_true", help="a phone's screen: 390 pixels wide")
    ap.add_argument("--web-build", help="the page's build folder (default BUILD/web)")
    ap.add_argument("--web-flag", action="append", default=[],
                    help="a -D option for a new web build folder (e.g. -DUPF_WEB_SIMD=ON)")
    ap.add_argument("--timing", type=int, default=0,
                    help="upscale the frame N more times and print the page's times")
    args = ap.parse_args()

    if not shutil.which("emcc"):
        if not args.require_web:
            print("test_web: skipped (no emcc, and the build was configured with UPF_WEB=OFF)")
            return SKIP
        raise SystemExit("test_web: emcc not found, but the build has UPF_WEB=ON "
                         "(scripts/deps.sh --test installs emscripten)")
    if not shutil.which(args.chromium):
        raise SystemExit("test_web: chromium not found (scripts/deps.sh --test installs it)")

    t0 = time.time()
    site = build_site(args)
    print(f"built the page in {time.time() - t0:.1f} s")
    work = tempfile.mkdtemp(prefix="upf_web_")
    browser = None
    httpd = serve(site)
    try:
        frame_dir = os.path.join(work, "render")
        run([args.upframe, "render", "courtyard", "--size", args.frame, "-o", frame_dir, "-q"])
        frame = os.path.join(frame_dir, "0000.final.png")
        cli_out = os.path.join(work, "cli.png")
        ref_out = os.path.join(work, "ref.png")
        run([args.upframe, "upscale", frame, "-o", cli_out, "--scale", "2", "-q"])
        run([args.web_ref, "upscale", frame, ref_out, "2"])

        browser = Browser(args.chromium, os.path.join(work, "profile"))
        browser.open(f"http://127.0.0.1:{httpd.server_address[1]}/index.html",
                     390 if args.mobile else 1280, args.mobile)
        check(browser.wait_state({"ready", "error"}, 60) == "ready", "the page loads the library")

        browser.eval("document.getElementById('scale').value = '2'")
        browser.upload("#image", frame)
        state = browser.wait_state({"done", "error"})
        check(state == "done", "the 2x upscale finishes (state 'done'; error: %s)" %
              browser.eval("document.getElementById('error').textContent"))
        page_png = os.path.join(work, "page.png")
        b64 = browser.eval("""fetch(document.getElementById('download').href)
            .then(r => r.arrayBuffer()).then(b => { let s = ''; const u = new Uint8Array(b);
            for (let i = 0; i < u.length; i += 8192) s += String.fromCharCode(...u.subarray(i, i + 8192));
            return btoa(s); })""")
        with open(page_png, "wb") as f:
            f.write(base64.b64decode(b64))
        d = json.loads(run([args.web_ref, "diff", ref_out, page_png]))
        check(d["differ"] == 0 and d["a"] == d["b"],
              f"the download equals the library's native C path bit for bit ({d})")
        d = json.loads(run([args.web_ref, "diff", cli_out, page_png]))
        print("page against `upframe upscale --scale 2`:", d)
        samples = d["a"][0] * d["a"][1] * 4
        check(d["a"] == d["b"] and d["max"] <= 1 and d["differ"] <= samples // 1000,
              "the download is within 1/255 of the CLI's on at most 0.1% of samples "
              f"({d['differ']} of {samples} differ, by at most {d['max']})")

        # Every view drew something that is not flat.
        drawn = browser.eval("""(() => {
            const varied = (c) => { if (!c.width || !c.height) return false;
              const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
              for (let i = 4; i < d.length; i++) if (d[i] !== d[i % 4]) return true; return false; };
            const all = (sel) => Array.from(document.querySelectorAll(sel));
            return { stages: all('#stages canvas').map(varied), matrices: all('#matrices canvas').map(varied),
                     steps: all('#steps canvas').map(varied), passes: all('.gallery canvas[id^=pass]').filter((c) => !c.hidden).map(varied),
                     hidden: all('.gallery canvas[id^=pass]').filter((c) => c.hidden).map((c) => c.id),
                     flags: window.upframePage.result.model.flags,
                     blocks: document.querySelectorAll('#blocks .block').length,
                     tiles: varied(document.getElementById('tiles')), check: document.body.dataset.windowCheck,
                     after: varied(document.getElementById('after')) }; })()""")
        check(len(drawn["stages"]) == 7 and all(drawn["stages"]), "the window and its six stages draw")
        check(len(drawn["matrices"]) == 24 and all(drawn["matrices"]), "the 24 matrices draw")
        check(len(drawn["steps"]) == 4 and all(drawn["steps"]), "the tile's 4 reconstruction steps draw")
        skips = "no-smaa" in drawn["flags"]
        check(all(drawn["passes"]) and drawn["hidden"] == (["pass-edges", "pass-weights"] if skips else []),
              f"the passes' pictures draw where the model runs them (flags {drawn['flags']}: "
              f"{len(drawn['passes'])} drawn, not run: {drawn['hidden']})")
        check(drawn["blocks"] >= 3 and drawn["tiles"] and drawn["after"],
              "the model file's blocks, the tile picker and the result draw")

        # Pick window (2, 1) with a click, move the tile one right with the keyboard.
        browser.eval("document.querySelector('#windows button[data-wx=\"2\"][data-wy=\"1\"]').click()")
        browser.eval("document.getElementById('tiles').focus()")
        browser.key("ArrowRight", "ArrowRight")
        end = time.time() + 30
        while time.time() < end:
            w = browser.eval("JSON.stringify(window.upframePage.lastWindow ? "
                             "[upframePage.lastWindow.tx, upframePage.lastWindow.ty, "
                             "upframePage.lastWindow.wx, upframePage.lastWindow.wy] : null)")
            if w == "[1,0,2,1]":
                break
            time.sleep(0.1)
        check(w == "[1,0,2,1]", f"a click picks window (2, 1) and the arrow key moves to tile (1, 0) ({w})")
        page_w = browser.eval("JSON.stringify(window.upframePage.lastWindow)")
        page_w = json.loads(page_w)
        native = json.loads(run([args.web_ref, "window", frame, "2", "1", "0", "2", "1"]))
        same = all(float32(a) == float32(b) for a, b in zip(page_w["values"], native["values"]))
        check(len(page_w["values"]) == 2048 and same,
              "the window's luma, stage-1 input and six stage outputs equal the native library's")
        same = all((a is None and b is None) or float32(a) == float32(b)
                   for a, b in zip(page_w["block"], native["block"]))
        check(same, "the engine's detail block there equals the native library's")
        check(browser.eval("document.body.dataset.windowCheck") == "equal",
              "stage 6's top-left 12x12 equals the engine's detail map (the page's own check)")

        if args.screenshot:
            browser.screenshot(args.screenshot)
        if args.timing:
            timing(args, browser, frame)

        # A model file of the user's (models/rendered.upfm, made by `upframe train`) in place of
        # the built-in set, then a damaged copy of it, which the library's loader refuses.
        model_file = os.path.abspath(os.path.join(args.source, "models", "rendered.upfm"))
        browser.eval("document.body.dataset.state = 'again'")
        browser.upload("#model", model_file)
        state = browser.wait_state({"done", "error"})
        check(state == "done", "the picture is upscaled again with a model file of the user's "
              "(error: %s)" % browser.eval("document.getElementById('error').textContent"))
        info = browser.eval("document.getElementById('block-info').textContent")
        flags = browser.eval("window.upframePage.result.model.flags")
        check(f"{os.path.getsize(model_file)} bytes" in info and flags == "cubic-base",
              f"the page shows that file's blocks and runs its model ({info!r}, flags {flags})")
        with open(model_file, "rb") as f:
            data = bytearray(f.read())
        data[len(data) // 2] ^= 0x40
        bad_model = os.path.join(work, "damaged.upfm")
        with open(bad_model, "wb") as f:
            f.write(data)
        browser.eval("document.body.dataset.state = 'again'")
        browser.upload("#model", bad_model)
        check(browser.wait_state({"done", "error"}, 60) == "error", "a damaged model file is an error")
        msg = browser.eval("document.getElementById('error').textContent")
        check("damaged.upfm" in msg and "checksum" in msg, f"with the loader's message: {msg!r}")

        # A damaged PNG (a real signature, then garbage) and a file that is not a picture.
        bad = os.path.join(work, "damaged.png")
        with open(frame, "rb") as f:
            data = bytearray(f.read())
        data[40:] = bytes((i * 37) & 0xFF for i in range(len(data) - 40))
        with open(bad, "wb") as f:
            f.write(data)
        browser.upload("#image", bad)
        check(browser.wait_state({"error", "done"}, 60) == "error", "a damaged PNG is an error")
        msg = browser.eval("document.getElementById('error').textContent")
        shown = browser.eval("!document.getElementById('error').hidden")
        check(shown and "damaged.png" in msg and "could not decode" in msg,
              f"the page says which file and what is wrong: {msg!r}")
        text = os.path.join(work, "notes.png")
        with open(text, "w") as f:
            f.write("not a picture\n")
        browser.eval("document.body.dataset.state = 'again'")
        browser.upload("#image", text)
        check(browser.wait_state({"error", "done"}, 60) == "error", "a text file is an error")
        msg = browser.eval("document.getElementById('error').textContent")
        check("notes.png" in msg and "not a PNG or JPEG" in msg, f"and says so: {msg!r}")

        browser.pump(0.5)
        errors = browser.console_errors()
        check(not errors, "no error reached the console" + ("".join("\n  " + e for e in errors)))
        print(f"test_web: all passed in {time.time() - t0:.1f} s")
        return 0
    finally:
        if browser:
            browser.close()
        httpd.shutdown()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
