// The live viewer's page: one document, no external resources (nothing is fetched from the network). It
// keeps its own camera (orbit / pan / zoom with the mouse, WASD + QE to fly, a training camera to jump to),
// asks the server for a frame when the view changed or the model moved on — only after the last frame came
// back, at half resolution while the camera moves — and shows the run's status, curves and controls.
#include "radiant/live/live_server.hpp"

namespace radiant::live {

const std::string& live_page() {
    static const std::string page = R"html(<!doctype html>
<html><head><meta charset="utf-8"><title>radiant — live</title>
<style>
html,body{margin:0;height:100%;background:#111;color:#ddd;font:13px system-ui,sans-serif;overflow:hidden}
#view{position:fixed;inset:0;width:100%;height:100%;cursor:grab;display:block}
#panel{position:fixed;left:10px;top:10px;background:rgba(20,20,24,.82);padding:10px 12px;border-radius:6px;width:250px}
#panel h1{font-size:14px;margin:0 0 6px 0;word-break:break-all}
#panel table{border-collapse:collapse;width:100%} #panel td{padding:1px 0} #panel td+td{text-align:right}
#panel button,#panel select{margin:2px 2px 2px 0;background:#333;color:#eee;border:1px solid #555;border-radius:3px;padding:3px 7px}
#panel canvas{width:100%;height:52px;background:#1c1c22;margin-top:4px;display:block}
#help{position:fixed;left:10px;bottom:8px;color:#888;font-size:12px;pointer-events:none}
#state{font-weight:600}
</style></head><body>
<canvas id="view"></canvas>
<div id="panel">
<h1 id="title">radiant</h1>
<div>state: <span id="state">connecting</span></div>
<table>
<tr><td>step</td><td id="step">–</td></tr><tr><td>loss</td><td id="loss">–</td></tr>
<tr><td>PSNR</td><td id="psnr">–</td></tr><tr><td>Gaussians</td><td id="gaussians">–</td></tr>
<tr><td>steps/s</td><td id="rate">–</td></tr><tr><td>ETA</td><td id="eta">–</td></tr>
<tr><td>frame</td><td id="frame">–</td></tr>
</table>
<canvas id="lossplot" width="500" height="104"></canvas>
<canvas id="psnrplot" width="500" height="104"></canvas>
<div id="runcontrols">
<button id="pause">pause</button><button id="checkpoint">save checkpoint</button><button id="stop">stop</button>
</div>
<div>
<select id="layer"><option value="rgb">RGB</option><option value="depth">depth</option><option value="alpha">alpha</option></select>
<select id="cameras"></select>
</div>
<div>field of view <input id="fov" type="range" min="15" max="120" value="50" style="width:110px"> <span id="fovdeg">50°</span></div>
</div>
<div id="help">drag: orbit · right-drag or shift-drag: pan · wheel: zoom · WASD QE: fly · the list: jump to a training camera</div>
<script>
"use strict";
const $ = (id) => document.getElementById(id);
const canvas = $("view"), ctx = canvas.getContext("2d");
const sub = (a, b) => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const add = (a, b) => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
const mul = (a, s) => [a[0] * s, a[1] * s, a[2] * s];
const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const norm = (a) => mul(a, 1 / Math.hypot(a[0], a[1], a[2]));
// Rodrigues: v turned by angle about the unit axis k.
const turn = (v, k, angle) => {
  const c = Math.cos(angle), s = Math.sin(angle);
  return add(add(mul(v, c), mul(cross(k, v), s)), mul(k, dot(k, v) * (1 - c)));
};
// The camera: position p, right r, down d, forward f (OpenCV, as radiant), orbiting the target.
const cam = { p: [0, 0, -4], r: [1, 0, 0], d: [0, 1, 0], f: [0, 0, 1], target: [0, 0, 0], fovy: 50 * Math.PI / 180 };
let up = [0, -1, 0], cameras = [], mode = "train";
const radiant = window.radiant = { frames: 0, step: -1, frameStep: -1, state: "connecting", lastFrameAt: 0 };
let nextId = 1, inFlight = false, dirty = true, lastInteraction = 0, sentScale = 1, lastSent = 0;
// The resolution a still camera gets: lowered while renders are slow (a CPU rendering a big scene), raised
// again when they are quick.
let stillScale = 1;
const keys = new Set();

function resize() {
  canvas.width = Math.max(16, Math.round(innerWidth));
  canvas.height = Math.max(16, Math.round(innerHeight));
  dirty = true;
}
addEventListener("resize", resize);
resize();

function jump(i) {
  const c = cameras[i];
  if (!c) return;
  const R = c.R.flat();  // rows, world→camera
  cam.r = [R[0], R[1], R[2]]; cam.d = [R[3], R[4], R[5]]; cam.f = [R[6], R[7], R[8]];
  const t = c.t;
  cam.p = mul([R[0] * t[0] + R[3] * t[1] + R[6] * t[2], R[1] * t[0] + R[4] * t[1] + R[7] * t[2],
               R[2] * t[0] + R[5] * t[1] + R[8] * t[2]], -1);
  const dist = radiant.focus ? Math.max(Math.hypot(...sub(radiant.focus, cam.p)), 1e-3) : 1;
  cam.target = add(cam.p, mul(cam.f, dist));
  cam.fovy = 2 * Math.atan(c.height / (2 * c.fy));
  $("fov").value = Math.round(cam.fovy * 180 / Math.PI);
  $("fovdeg").textContent = $("fov").value + "°";
  moved();
}
function moved() { dirty = true; lastInteraction = performance.now(); }
function orbit(dx, dy) {
  const yaw = -dx * 0.006, pitch = dy * 0.006;
  const turnAll = (axis, angle) => {
    cam.p = add(cam.target, turn(sub(cam.p, cam.target), axis, angle));
    cam.r = turn(cam.r, axis, angle); cam.d = turn(cam.d, axis, angle); cam.f = turn(cam.f, axis, angle);
  };
  turnAll(up, yaw);
  const before = { p: cam.p, r: cam.r, d: cam.d, f: cam.f };
  turnAll(norm(cam.r), pitch);
  if (Math.abs(dot(cam.f, up)) > 0.985) Object.assign(cam, before);  // never over the pole
  moved();
}
function pan(dx, dy) {
  const dist = Math.hypot(...sub(cam.p, cam.target));
  const s = dist * 2 * Math.tan(cam.fovy / 2) / canvas.height;
  const delta = add(mul(cam.r, -dx * s), mul(cam.d, -dy * s));
  cam.p = add(cam.p, delta); cam.target = add(cam.target, delta);
  moved();
}
function zoom(amount) {
  const off = sub(cam.p, cam.target);
  cam.p = add(cam.target, mul(off, Math.exp(amount * 0.0012)));
  moved();
}
let drag = null;
canvas.addEventListener("pointerdown", (e) => { drag = { x: e.clientX, y: e.clientY, pan: e.button === 2 || e.shiftKey }; canvas.setPointerCapture(e.pointerId); });
canvas.addEventListener("pointermove", (e) => {
  if (!drag) return;
  const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
  drag.x = e.clientX; drag.y = e.clientY;
  if (drag.pan) pan(dx, dy); else orbit(dx, dy);
});
canvas.addEventListener("pointerup", () => { drag = null; });
canvas.addEventListener("contextmenu", (e) => e.preventDefault());
canvas.addEventListener("wheel", (e) => { e.preventDefault(); zoom(e.deltaY); }, { passive: false });
addEventListener("keydown", (e) => { if (!e.target.closest || !e.target.closest("#panel")) keys.add(e.key.toLowerCase()); });
addEventListener("keyup", (e) => keys.delete(e.key.toLowerCase()));
$("fov").addEventListener("input", () => { cam.fovy = $("fov").value * Math.PI / 180; $("fovdeg").textContent = $("fov").value + "°"; moved(); });
$("layer").addEventListener("change", () => { dirty = true; });
$("cameras").addEventListener("change", () => jump(+$("cameras").value));

const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
ws.binaryType = "arraybuffer";
const send = (m) => { if (ws.readyState === 1) ws.send(JSON.stringify(m)); };
$("pause").onclick = () => send({ type: "control", action: radiant.state === "paused" ? "resume" : "pause" });
$("checkpoint").onclick = () => send({ type: "control", action: "checkpoint" });
$("stop").onclick = () => { if (confirm("Stop the run? It saves a checkpoint; --resume continues it.")) send({ type: "control", action: "stop" }); };

function request(now) {
  const moving = now - lastInteraction < 180 || keys.size > 0 || drag !== null;
  const scale = moving ? stillScale / 2 : stillScale;
  const W = Math.max(16, Math.round(canvas.width * scale)), H = Math.max(16, Math.round(canvas.height * scale));
  const fy = H / (2 * Math.tan(cam.fovy / 2));
  const R = [...cam.r, ...cam.d, ...cam.f];
  const t = [-dot(cam.r, cam.p), -dot(cam.d, cam.p), -dot(cam.f, cam.p)];
  send({ type: "view", id: nextId++, layer: $("layer").value, quality: moving ? 60 : 85,
         camera: { width: W, height: H, fx: fy, fy: fy, cx: W / 2, cy: H / 2, R: R, t: t } });
  inFlight = true; dirty = false; sentScale = scale; lastSent = now; radiant.requests = (radiant.requests || 0) + 1;
}

let lastTick = performance.now();
function tick(now) {
  const dt = Math.min(0.1, (now - lastTick) / 1000);
  lastTick = now;
  if (keys.size) {
    const dist = Math.max(Math.hypot(...sub(cam.p, cam.target)), 1e-3), v = dist * 0.8 * dt;
    let delta = [0, 0, 0];
    if (keys.has("w")) delta = add(delta, mul(cam.f, v));
    if (keys.has("s")) delta = add(delta, mul(cam.f, -v));
    if (keys.has("d")) delta = add(delta, mul(cam.r, v));
    if (keys.has("a")) delta = add(delta, mul(cam.r, -v));
    if (keys.has("e")) delta = add(delta, mul(up, v));
    if (keys.has("q")) delta = add(delta, mul(up, -v));
    if (delta.some((x) => x !== 0)) { cam.p = add(cam.p, delta); cam.target = add(cam.target, delta); moved(); }
  }
  maybeRequest(now);
  requestAnimationFrame(tick);
}
// Asked from the animation loop, when a frame arrives, and on a timer (animation frames stall when the
// machine is busy — a CPU run on the same machine — and a request must still go out).
function maybeRequest(now) {
  const still = now - lastInteraction >= 180 && keys.size === 0 && drag === null;
  if (still && sentScale < stillScale) dirty = true;  // sharpen once the camera stops
  // While training, the model changes under a still camera: a fresh frame every second.
  const refresh = mode === "train" && radiant.state === "training" && now - lastSent > 1000;
  if (ws.readyState === 1 && !inFlight && (dirty || refresh)) request(now);
}
setInterval(() => maybeRequest(performance.now()), 200);

ws.onmessage = async (e) => {
  if (typeof e.data === "string") {
    const m = JSON.parse(e.data);
    if (m.type === "hello") {
      const first = cameras.length === 0;
      mode = m.mode || "train"; cameras = m.cameras || [];
      if (m.up) up = norm(m.up);
      radiant.focus = m.focus;
      $("title").textContent = m.title || "radiant";
      document.title = "radiant — " + (m.title || "live");
      $("runcontrols").style.display = mode === "train" ? "" : "none";
      const list = $("cameras");
      list.innerHTML = "";
      cameras.forEach((c, i) => { const o = document.createElement("option"); o.value = i; o.textContent = c.name || ("camera " + i); list.appendChild(o); });
      if (first && cameras.length) jump(0); else dirty = true;
    } else if (m.type === "status") status(m);
    return;
  }
  const view = new DataView(e.data);
  const step = view.getUint32(4, true);
  const latency = performance.now() - lastSent, renderMs = view.getUint32(8, true) / 1000;
  if (renderMs > 250 && stillScale > 0.25) stillScale /= 2;
  else if (renderMs < 60 && stillScale < 1) stillScale = Math.min(1, stillScale * 1.25);
  const bmp = await createImageBitmap(new Blob([new Uint8Array(e.data, 12)], { type: "image/jpeg" }));
  ctx.drawImage(bmp, 0, 0, canvas.width, canvas.height);
  const size = `${bmp.width}×${bmp.height}`;
  bmp.close();
  radiant.frames++; radiant.frameStep = step; radiant.lastFrameAt = performance.now();
  $("frame").textContent = `${size}, ${Math.round(renderMs)} ms (${Math.round(latency)} ms)`;
  inFlight = false;
  maybeRequest(performance.now());
};
ws.onclose = () => { radiant.state = "disconnected"; $("state").textContent = "disconnected (the run or the server ended)"; };

const lossHistory = [], psnrHistory = [];
function plot(id, points, label, digits) {
  const c = $(id), g = c.getContext("2d");
  g.clearRect(0, 0, c.width, c.height);
  g.fillStyle = "#aaa"; g.font = "20px system-ui";
  if (points.length < 2) { g.fillText(label, 8, 24); return; }
  let lo = Infinity, hi = -Infinity;
  for (const [, v] of points) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  if (hi - lo < 1e-9) { hi += 1e-6; lo -= 1e-6; }
  const s0 = points[0][0], s1 = points[points.length - 1][0] || 1;
  g.strokeStyle = id === "lossplot" ? "#e0685a" : "#5aa0e0"; g.lineWidth = 2; g.beginPath();
  points.forEach(([s, v], i) => {
    const x = 4 + (c.width - 8) * (s - s0) / Math.max(s1 - s0, 1), y = c.height - 6 - (c.height - 30) * (v - lo) / (hi - lo);
    if (i) g.lineTo(x, y); else g.moveTo(x, y);
  });
  g.stroke();
  g.fillText(`${label} ${points[points.length - 1][1].toFixed(digits)}  (${lo.toFixed(digits)}–${hi.toFixed(digits)})`, 8, 24);
}
function status(m) {
  radiant.state = m.state; radiant.step = m.step;
  $("state").textContent = m.state;
  $("pause").textContent = m.state === "paused" ? "resume" : "pause";
  if (m.state === "scene") { $("step").textContent = "saved scene"; $("gaussians").textContent = m.gaussians.toLocaleString(); return; }
  $("step").textContent = m.steps ? `${m.step} / ${m.steps}` : "–";
  $("loss").textContent = m.step ? m.loss.toFixed(4) : "–";
  $("psnr").textContent = m.step ? m.psnr.toFixed(2) + " dB" : "–";
  $("gaussians").textContent = m.gaussians ? m.gaussians.toLocaleString() : "–";
  $("rate").textContent = m.steps_per_second ? m.steps_per_second.toFixed(1) : "–";
  const eta = m.steps_per_second > 0 ? (m.steps - m.step) / m.steps_per_second : 0;
  $("eta").textContent = m.step ? `${Math.floor(eta / 60)}m${String(Math.round(eta % 60)).padStart(2, "0")}s` : "–";
  if (m.step > 0 && (!lossHistory.length || lossHistory[lossHistory.length - 1][0] !== m.step)) {
    lossHistory.push([m.step, m.loss]); psnrHistory.push([m.step, m.psnr]);
    if (lossHistory.length > 600) { lossHistory.splice(0, 2); psnrHistory.splice(0, 2); }
    plot("lossplot", lossHistory, "loss", 4); plot("psnrplot", psnrHistory, "PSNR", 2);
  }
}
plot("lossplot", [], "loss", 4); plot("psnrplot", [], "PSNR", 2);
requestAnimationFrame(tick);
</script></body></html>
)html";
    return page;
}

}  // namespace radiant::live
