// Helpers shared by the viewer tests: deterministic random scenes written as the standard 3DGS PLY, running
// radiant and splat-transform, and reading splat-transform's --stats.
import { execFileSync } from 'node:child_process';
import { writeFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const here = dirname(fileURLToPath(import.meta.url));
export const modules = process.env.RADIANT_VIEWER_MODULES ?? join(here, '..', '..', 'viewer', 'node_modules');
export const splatTransform = join(modules, '.bin', 'splat-transform');

// Exit status ctest reads as "skipped" (SKIP_RETURN_CODE).
export const SKIP = 77;
export function requireInstalled(...paths) {
    for (const p of paths) {
        if (!existsSync(p)) {
            console.log(`SKIP: ${p} is missing; run scripts/install-deps.sh --viewer`);
            process.exit(SKIP);
        }
    }
}

export function mulberry32(seed) {
    return () => {
        seed |= 0;
        seed = (seed + 0x6d2b79f5) | 0;
        let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
        t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}

// Standard 3DGS PLY columns for SH degree 3 (f_rest channel-major).
export const columns = ['x', 'y', 'z', 'nx', 'ny', 'nz', 'f_dc_0', 'f_dc_1', 'f_dc_2',
    ...Array.from({ length: 45 }, (_, i) => `f_rest_${i}`), 'opacity', 'scale_0', 'scale_1', 'scale_2',
    'rot_0', 'rot_1', 'rot_2', 'rot_3'];

// rows: array of objects with the column names. Binary little-endian floats.
export function writePly(path, rows) {
    const header = ['ply', 'format binary_little_endian 1.0', `element vertex ${rows.length}`,
        ...columns.map((c) => `property float ${c}`), 'end_header', ''].join('\n');
    const body = new Float32Array(rows.length * columns.length);
    rows.forEach((r, i) => columns.forEach((c, j) => { body[i * columns.length + j] = r[c] ?? 0; }));
    writeFileSync(path, Buffer.concat([Buffer.from(header), Buffer.from(body.buffer)]));
}

export function run(cmd, args) {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

// splat-transform's per-column statistics of a file: { count, columns: { name: {min, max, mean} } }.
export function stats(path) {
    const j = JSON.parse(run(splatTransform, ['-q', path, '--stats', 'json', 'null']));
    const s = j.stats[0];
    const cols = {};
    s.columns.forEach((name, k) => {
        cols[name] = { min: s.data.min[k], max: s.data.max[k], mean: s.data.mean[k] };
    });
    return { count: j.numGaussians, shBands: j.shBands, format: j.format, columns: cols };
}
