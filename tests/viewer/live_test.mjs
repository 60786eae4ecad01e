// ctest viewer.live (issue 21): `radiant train --viewer` on a short CPU run, watched from headless Chromium.
// A frame arrives within 10 s; dragging changes the image; pause holds the step counter (and frames still
// come); resume moves it again; "save checkpoint" writes one; a malformed message is ignored with a log line;
// a WebSocket from another origin is refused; stop ends the run with a checkpoint. Then `radiant view RUN
// --serve` shows a saved run the same way until Ctrl-C. Screenshots go to WORKDIR.
// Usage: node live_test.mjs RADIANT DATA_DIR SAVED_RUN WORKDIR
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { modules, requireInstalled } from './common.mjs';

const [radiant, data, saved, work] = process.argv.slice(2);
const chromium = process.env.RADIANT_CHROMIUM ?? '/usr/bin/chromium';
requireInstalled(radiant, data, chromium, join(modules, 'playwright-core'));
const { chromium: launcher } = await import(join(modules, 'playwright-core', 'index.mjs'));
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });

const fail = (why) => { throw new Error(why); };
const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));
const port = 20000 + Math.floor(Math.random() * 20000);
const run = join(work, 'run');
const proc = spawn(radiant, ['train', '-d', data, '-o', run, '--steps', '200000', '--backend', 'cpu', '--white-bg',
    `--viewer=${port}`, '--log-every', '50'], { stdio: ['ignore', 'pipe', 'pipe'] });
let log = '';
proc.stdout.on('data', (d) => { log += d; });
proc.stderr.on('data', (d) => { log += d; });
const exited = new Promise((ok) => proc.on('exit', (code) => ok(code)));

let url = null;
for (let i = 0; i < 100 && !url; ++i) {
    const m = log.match(/viewer: (http:\/\/[^ ]+\/)/);
    if (m) url = m[1];
    else await sleep(100);
}
let status = 1;
const browser = await launcher.launch({ executablePath: chromium, args: ['--no-sandbox'] });
try {
    if (!url) fail(`no viewer URL printed:\n${log}`);
    console.log(`viewer at ${url}`);
    const page = await browser.newPage({ viewport: { width: 480, height: 360 } });
    const pageLog = [];
    page.on('console', (m) => pageLog.push(m.text()));
    page.on('pageerror', (e) => pageLog.push(`page error: ${e.message}`));
    page.on('dialog', (d) => d.accept());
    const t0 = Date.now();
    await page.goto(url);
    await page.waitForFunction(() => window.radiant.frames >= 1, null, { timeout: 10000 })
        .catch(() => fail(`no frame within 10 s\n${pageLog.join('\n')}\n${log}`));
    console.log(`first frame after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    // The training cameras reach the page even when it connected before the dataset had opened.
    await page.waitForFunction(() => document.getElementById('cameras').options.length > 0, null, { timeout: 10000 })
        .catch(() => fail('the page never got the training cameras'));

    // The canvas's pixels once the frames settle (a full-resolution frame after the last move).
    const settle = async () => {
        await sleep(700);
        const n = await page.evaluate(() => window.radiant.frames);
        await page.waitForFunction((k) => window.radiant.frames > k, n, { timeout: 10000 });
        return page.evaluate(() => {
            const c = document.getElementById('view');
            return Array.from(c.getContext('2d').getImageData(0, 0, c.width, c.height).data.filter((_, i) => i % 16 === 0));
        });
    };
    const difference = (a, b) => a.reduce((s, v, i) => s + Math.abs(v - b[i]), 0) / a.length;
    await page.evaluate(() => { document.getElementById('panel').style.display = 'none'; });
    const before = await settle();
    await page.mouse.move(240, 180);
    await page.mouse.down();
    for (let k = 1; k <= 10; ++k) { await page.mouse.move(240 + 12 * k, 180 + 2 * k); await sleep(30); }
    await page.mouse.up();
    const after = await settle();
    const moved = difference(before, after);
    console.log(`mean change after a drag: ${moved.toFixed(2)} grey levels`);
    if (!(moved > 2)) fail('dragging did not change the image');
    await page.evaluate(() => { document.getElementById('panel').style.display = ''; });
    await page.screenshot({ path: join(work, 'live.png') });

    // Pause: the step counter holds, frames still come.
    await page.click('#pause');
    await page.waitForFunction(() => window.radiant.state === 'paused', null, { timeout: 10000 });
    const held = await page.evaluate(() => window.radiant.step);
    const framesPaused = await page.evaluate(() => window.radiant.frames);
    await page.mouse.move(240, 180);
    await page.mouse.down();
    await page.mouse.move(300, 200, { steps: 5 });
    await page.mouse.up();
    await sleep(1500);
    const still = await page.evaluate(() => window.radiant.step);
    console.log(`paused at step ${held}; 1.5 s later: ${still}`);
    if (!(held > 0) || still !== held) fail('pause did not hold the run');
    if (!(await page.evaluate(() => window.radiant.frames)) > framesPaused) fail('no frames while paused');

    // Save a checkpoint while paused, then resume.
    const ck = join(run, 'checkpoint.bin');
    const ckBefore = existsSync(ck) ? statSync(ck).mtimeMs : 0;
    await page.click('#checkpoint');
    for (let i = 0; i < 50 && !(existsSync(ck) && statSync(ck).mtimeMs > ckBefore); ++i) await sleep(100);
    if (!(existsSync(ck) && statSync(ck).mtimeMs > ckBefore)) fail('"save checkpoint" wrote none');
    await page.click('#pause');
    await page.waitForFunction((s) => window.radiant.step > s + 5, held, { timeout: 10000 })
        .catch(() => fail('resume did not move the run on'));

    // Hostile input: a malformed message is ignored with a log line; the run goes on.
    await page.evaluate(async (u) => {
        const ws = new WebSocket(u.replace('http', 'ws') + 'ws');
        await new Promise((ok) => { ws.onopen = ok; });
        ws.send('{"type": "view", "camera": {"width": "huge"}}');
        ws.send('x'.repeat(100000));
        ws.close();
    }, url);
    await sleep(500);
    if (!/viewer: ignored a message/.test(log)) fail('a malformed message left no log line');
    // A WebSocket from another site's page (its Origin) is refused.
    const code = await new Promise((ok) => {
        const r = request({ host: '127.0.0.1', port: new URL(url).port, path: '/ws', headers: {
            Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13',
            'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', Origin: 'http://evil.example' } });
        r.on('upgrade', () => ok(101));
        r.on('response', (res) => ok(res.statusCode));
        r.on('error', () => ok(-1));
        r.end();
    });
    console.log(`WebSocket from another origin: HTTP ${code}`);
    if (code === 101) fail('a WebSocket from another origin was accepted');

    // Stop: the run ends with a checkpoint.
    await page.click('#stop');
    const exitCode = await Promise.race([exited, sleep(15000).then(() => 'timeout')]);
    if (exitCode === 'timeout') fail('stop did not end the run');
    if (!/stopped at step \d+; checkpoint saved/.test(log)) fail(`stop left no checkpoint:\n${log}`);
    writeFileSync(join(work, 'train.log'), log);

    // A saved run, served: frames come, the page says it is a scene, Ctrl-C ends the server.
    const servePort = port + 1;
    const server = spawn(radiant, ['view', saved, `--serve=${servePort}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    let serveLog = '';
    server.stderr.on('data', (d) => { serveLog += d; });
    const served = new Promise((ok) => server.on('exit', (c, signal) => ok(signal ?? c)));
    let serveUrl = null;
    for (let i = 0; i < 100 && !serveUrl; ++i) {
        const m = serveLog.match(/viewer: (http:\/\/[^ ]+\/)/);
        if (m) serveUrl = m[1]; else await sleep(100);
    }
    if (!serveUrl) fail(`view --serve printed no URL:\n${serveLog}`);
    await page.goto(serveUrl);
    await page.waitForFunction(() => window.radiant.frames >= 1 && window.radiant.state === 'scene', null,
        { timeout: 10000 }).catch(() => fail(`view --serve: no frame\n${serveLog}`));
    await page.screenshot({ path: join(work, 'serve.png') });
    server.kill('SIGINT');
    const ended = await Promise.race([served, sleep(5000).then(() => 'timeout')]);
    if (ended === 'timeout') { server.kill('SIGKILL'); fail('view --serve did not end on Ctrl-C'); }
    console.log('view --serve: frames of the saved run, ended by Ctrl-C');
    console.log('all checks passed');
    status = 0;
} catch (e) {
    console.log(`FAIL: ${e.message}`);
    writeFileSync(join(work, 'train.log'), log);
} finally {
    await browser.close();
    proc.kill('SIGKILL');
}
process.exit(status);
