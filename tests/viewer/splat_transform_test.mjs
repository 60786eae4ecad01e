// ctest viewer.splat_transform (issue 10): PlayCanvas splat-transform, a real third-party reader and writer.
//  1. every file radiant writes (.ply, .splat, .compressed.ply, .spz) is read by splat-transform with the
//     same count and the same position bounds (within the format's quantisation);
//  2. files splat-transform writes from our PLY (.ply, .compressed.ply, .spz) are read back by radiant with
//     the same values: per-column min/max/mean of what radiant re-writes match the original within the
//     format's quantisation (order-free, as the compressed writer reorders splats). The f_rest columns have
//     distinct means, so a coefficient-order or channel-order mistake shows.
// Usage: node splat_transform_test.mjs RADIANT WORKDIR
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { mulberry32, requireInstalled, run, splatTransform, stats, writePly } from './common.mjs';

const [radiant, work] = process.argv.slice(2);
requireInstalled(splatTransform, radiant);
mkdirSync(work, { recursive: true });

const rand = mulberry32(7);
const n = 3000;
const rows = [];
for (let i = 0; i < n; ++i) {
    const r = { x: 4 * rand() - 2, y: 2 * rand() - 1, z: 6 * rand() - 3 };
    for (let c = 0; c < 3; ++c) r[`f_dc_${c}`] = 1.4 * rand() - 0.7;
    for (let k = 0; k < 45; ++k) r[`f_rest_${k}`] = 0.01 * k - 0.22 + 0.1 * (rand() - 0.5);
    r.opacity = 5 * rand() - 2.5;
    for (let c = 0; c < 3; ++c) r[`scale_${c}`] = -4.5 + 2 * rand();
    const q = [rand() + 0.5, rand() - 0.5, rand() - 0.5, rand() - 0.5];
    const qn = Math.hypot(...q);
    q.forEach((v, c) => { r[`rot_${c}`] = v / qn; });
    rows.push(r);
}
const original = join(work, 'original.ply');
writePly(original, rows);
const ref = stats(original);

let failures = 0;
const check = (ok, what) => {
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
    if (!ok) failures++;
};
const near = (a, b, tol) => Math.abs(a - b) <= tol;

// 1. radiant writes, splat-transform reads.
const positionTol = { ply: 0, splat: 0, 'compressed.ply': 6 / 2047, spz: 0.5 / 4096 + 1e-6 };
for (const ext of Object.keys(positionTol)) {
    const out = join(work, `radiant.${ext}`);
    run(radiant, ['convert', original, out]);
    const s = stats(out);
    check(s.count === n, `${ext}: splat-transform reads ${s.count} Gaussians (radiant wrote ${n})`);
    for (const axis of ['x', 'y', 'z']) {
        const a = s.columns[axis], b = ref.columns[axis];
        check(near(a.min, b.min, positionTol[ext] + 1e-6) && near(a.max, b.max, positionTol[ext] + 1e-6),
            `${ext}: ${axis} bounds [${a.min}, ${a.max}] vs [${b.min}, ${b.max}]`);
    }
    check(s.shBands === (ext === 'splat' ? 0 : 3), `${ext}: SH bands ${s.shBands}`);
}

// 2. splat-transform writes, radiant reads (and re-writes a PLY for the comparison).
const tolerances = {
    ply: { pos: 1e-6, dc: 1e-6, rest: 1e-6, opacity: 1e-6, scale: 1e-6 },
    'compressed.ply': { pos: 6 / 2047, dc: 1 / 255 / 0.2821 + 1e-4, rest: 8 / 256 + 1e-4, opacity: 0.05, scale: 2 / 1023 + 1e-4 },
    spz: { pos: 0.5 / 4096 + 1e-6, dc: 0.5 / 255 / 0.15 + 1e-4, rest: 8.5 / 128 + 1e-4, opacity: 0.05, scale: 1 / 32 + 1e-4 },  // 4-bit SH buckets above degree 1
};
for (const [ext, tol] of Object.entries(tolerances)) {
    const theirs = join(work, `splat-transform.${ext}`);
    run(splatTransform, ['-q', '-w', original, theirs]);
    const back = join(work, `back-from-${ext.replace('.', '-')}.ply`);
    const said = run(radiant, ['convert', theirs, back]);
    const s = stats(back);
    check(s.count === n, `${ext}: radiant reads ${s.count} Gaussians from splat-transform's file (${said.split('\n')[0]})`);
    let worst = { name: '', err: 0, tol: 0, margin: -Infinity };
    for (const [name, b] of Object.entries(ref.columns)) {
        if (name.startsWith('rot_') || name.startsWith('n')) continue;  // q and -q are one rotation; no normals
        const t = name === 'x' || name === 'y' || name === 'z' ? tol.pos
            : name.startsWith('f_dc') ? tol.dc : name.startsWith('f_rest') ? tol.rest
                : name === 'opacity' ? tol.opacity : tol.scale;
        const a = s.columns[name];
        if (!a) { check(false, `${ext}: column ${name} missing after radiant's read`); continue; }
        for (const k of ['min', 'max', 'mean']) {
            const err = Math.abs(a[k] - b[k]);
            if (err - t > worst.margin) worst = { name: `${name}.${k}`, err, tol: t, margin: err - t };
        }
    }
    check(worst.err <= worst.tol, `${ext}: the column statistic closest to its bound, ${worst.name}, differs by ${worst.err.toExponential(2)} (allowed ${worst.tol.toExponential(2)})`);
}
console.log(failures ? `${failures} check(s) failed` : 'all checks passed');
process.exit(failures ? 1 : 0);
