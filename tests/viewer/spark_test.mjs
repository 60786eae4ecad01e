// ctest viewer.spark (issue 10): the same scene and camera rendered by radiant (`radiant render`) and by the
// Spark viewer (`radiant view`'s page in headless Chromium, SwiftShader WebGL, served on 127.0.0.1 only) must
// match: PSNR ≥ 25 dB. The scene has strong SH up to degree 3, and the match must beat radiant's own
// degree-0 render by a clear margin, so coefficient order and signs are what is being checked.
// Usage: node spark_test.mjs RADIANT WORKDIR
import { createServer } from 'node:http';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { extname, join, normalize } from 'node:path';
import { modules, mulberry32, requireInstalled, run, writePly } from './common.mjs';

const [radiant, work] = process.argv.slice(2);
const chromium = process.env.RADIANT_CHROMIUM ?? '/usr/bin/chromium';
requireInstalled(radiant, chromium, join(modules, 'playwright-core'), join(modules, '@sparkjsdev', 'spark'));
const { chromium: launcher } = await import(join(modules, 'playwright-core', 'index.mjs'));
mkdirSync(work, { recursive: true });

// A layer of fairly opaque Gaussians filling the view, with view-dependent colour from every SH band.
const rand = mulberry32(3);
const rows = [];
for (let i = 0; i < 4000; ++i) {
    const r = { x: 3.6 * rand() - 1.8, y: 2.8 * rand() - 1.4, z: 0.8 * rand() - 0.4 };
    for (let c = 0; c < 3; ++c) r[`f_dc_${c}`] = 1.2 * rand() - 0.6;
    for (let k = 0; k < 45; ++k) r[`f_rest_${k}`] = 0.5 * (rand() - 0.5);
    r.opacity = 1 + 2 * rand();
    for (let c = 0; c < 3; ++c) r[`scale_${c}`] = -3.2 + 0.8 * rand();
    const q = [rand() + 0.2, rand() - 0.5, rand() - 0.5, rand() - 0.5];
    const qn = Math.hypot(...q);
    q.forEach((v, c) => { r[`rot_${c}`] = v / qn; });
    rows.push(r);
}
const ply = join(work, 'scene.ply');
writePly(ply, rows);
// Off-axis so the SH is evaluated at varied directions: at (0.8, -0.5, -3.5), looking at the origin.
const eye = [0.8, -0.5, -3.5];
const f = eye.map((v) => -v), fn = Math.hypot(...f);
const fwd = f.map((v) => v / fn);
const rightRaw = [fwd[2], 0, -fwd[0]], rn = Math.hypot(...rightRaw);  // forward × (0, -1, 0)... y down
const right = rightRaw.map((v) => v / rn);
const down = [fwd[1] * right[2] - fwd[2] * right[1], fwd[2] * right[0] - fwd[0] * right[2], fwd[0] * right[1] - fwd[1] * right[0]];
const R = [right, down, fwd];
const t = R.map((row) => -(row[0] * eye[0] + row[1] * eye[1] + row[2] * eye[2]));
const camera = join(work, 'camera.json');
writeFileSync(camera, JSON.stringify({ width: 320, height: 240, fx: 260, fy: 260, cx: 160, cy: 120, R, t }));

const viewDir = join(work, 'view');
run(radiant, ['view', ply, '-o', viewDir, '--camera', camera]);
run(radiant, ['render', '--ply', ply, '--camera', camera, '-o', join(viewDir, 'radiant.png')]);
run(radiant, ['render', '--ply', ply, '--camera', camera, '--sh-degree', '0', '-o', join(viewDir, 'radiant_sh0.png')]);

const types = { '.html': 'text/html', '.js': 'text/javascript', '.png': 'image/png', '.ply': 'application/octet-stream' };
const server = createServer((req, res) => {
    const path = normalize(join(viewDir, decodeURIComponent(new URL(req.url, 'http://x').pathname)));
    if (!path.startsWith(viewDir)) { res.writeHead(403).end(); return; }
    try {
        const body = readFileSync(path.endsWith('/') ? join(path, 'index.html') : path);
        res.writeHead(200, { 'Content-Type': types[extname(path)] ?? 'application/octet-stream' }).end(body);
    } catch { res.writeHead(404).end(); }
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const url = `http://127.0.0.1:${server.address().port}/index.html?fixed`;

const browser = await launcher.launch({
    executablePath: chromium,
    args: ['--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist', '--no-sandbox'],
});
let status = 1;
try {
    const page = await browser.newPage({ viewport: { width: 320, height: 240 } });
    const logs = [];
    page.on('console', (m) => logs.push(m.text()));
    page.on('pageerror', (e) => logs.push(`page error: ${e.message}`));
    await page.goto(url);
    try {
        await page.waitForFunction(() => window.radiantReady === true, null, { timeout: 240000 });
    } catch (e) {
        console.log(logs.join('\n'));
        throw e;
    }
    const frame = await page.evaluate(() => window.radiantFrame);
    writeFileSync(join(work, 'spark.png'), Buffer.from(frame.split(',')[1], 'base64'));
    // PSNR in the page: both images decoded by the browser, compared on RGB.
    const psnr = await page.evaluate(async (names) => {
        const load = (src) => new Promise((ok, fail) => { const im = new Image(); im.onload = () => ok(im); im.onerror = fail; im.src = src; });
        const pixels = (im) => {
            const c = document.createElement('canvas');
            c.width = im.width; c.height = im.height;
            const g = c.getContext('2d');
            g.drawImage(im, 0, 0);
            return g.getImageData(0, 0, im.width, im.height).data;
        };
        const spark = pixels(await load(window.radiantFrame));
        const out = {};
        for (const name of names) {
            const ref = pixels(await load(name));
            let se = 0, count = 0;
            for (let i = 0; i < ref.length; i += 4)
                for (let c = 0; c < 3; ++c) { const d = (ref[i + c] - spark[i + c]) / 255; se += d * d; ++count; }
            out[name] = 10 * Math.log10(count / se);
        }
        return out;
    }, ['radiant.png', 'radiant_sh0.png']);
    const match = psnr['radiant.png'], sh0 = psnr['radiant_sh0.png'];
    console.log(`Spark vs radiant render (SH degree 3): PSNR ${match.toFixed(2)} dB`);
    console.log(`Spark vs radiant render at SH degree 0 (control): PSNR ${sh0.toFixed(2)} dB`);
    const ok = match >= 25 && match >= sh0 + 3;
    console.log(ok ? 'all checks passed' : 'FAIL: need PSNR ≥ 25 dB and ≥ 3 dB above the degree-0 control');
    status = ok ? 0 : 1;
} finally {
    await browser.close();
    server.close();
}
process.exit(status);
