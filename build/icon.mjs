// Draws the app icon — a probe's mast sending signals, on a teal tile — as build/icon.svg and
// build/icon.png (512×512, what electron-builder turns into each platform's icon formats).
// One geometry, two renderings: SVG markup, and a small anti-aliased rasteriser writing a PNG
// with node:zlib. Run `node build/icon.mjs` after changing the drawing; both files are committed.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

export const SIZE = 512;

const TILE = { x: 16, y: 16, size: 480, radius: 108, top: [0x17, 0x5a, 0x72], bottom: [0x0b, 0x2e, 0x3c] };
const WHITE = [0xf4, 0xf9, 0xfb];
const AMBER = [0xf2, 0xb1, 0x34];
const NODE = { x: 256, y: 196, r: 30 };
const STROKE = 26;
/** Signal arcs around the node: radius, and the half-angle each side spans. */
const ARCS = [
  { r: 80, half: 40 },
  { r: 134, half: 36 },
];
/** The mast: two legs, a cross-bar and a base, as round-capped strokes. */
const LINES = [
  [256, 236, 198, 416],
  [256, 236, 314, 416],
  [223, 336, 289, 336],
  [168, 420, 344, 420],
];

const rad = (degrees) => (degrees * Math.PI) / 180;

/** Arcs as [centre angle] pairs: right side around 0°, left side around 180°. */
function arcSpans() {
  return ARCS.flatMap(({ r, half }) => [
    { r, from: -half, to: half },
    { r, from: 180 - half, to: 180 + half },
  ]);
}

export function iconSvg() {
  const point = (r, degrees) => [NODE.x + r * Math.cos(rad(degrees)), NODE.y + r * Math.sin(rad(degrees))].map((n) => n.toFixed(2)).join(' ');
  const arcs = arcSpans()
    .map(({ r, from, to }) => `<path d="M ${point(r, from)} A ${r} ${r} 0 0 1 ${point(r, to)}"/>`)
    .join('\n    ');
  const lines = LINES.map(([x1, y1, x2, y2]) => `<line x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}"/>`).join('\n    ');
  const hex = (rgb) => `#${rgb.map((c) => c.toString(16).padStart(2, '0')).join('')}`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE}" height="${SIZE}" viewBox="0 0 ${SIZE} ${SIZE}">
  <title>Outpost</title>
  <defs>
    <linearGradient id="tile" x1="0" y1="0" x2="0" y2="1">
      <stop offset="0" stop-color="${hex(TILE.top)}"/>
      <stop offset="1" stop-color="${hex(TILE.bottom)}"/>
    </linearGradient>
  </defs>
  <rect x="${TILE.x}" y="${TILE.y}" width="${TILE.size}" height="${TILE.size}" rx="${TILE.radius}" fill="url(#tile)"/>
  <g fill="none" stroke="${hex(WHITE)}" stroke-width="${STROKE}" stroke-linecap="round">
    ${arcs}
    ${lines}
  </g>
  <circle cx="${NODE.x}" cy="${NODE.y}" r="${NODE.r}" fill="${hex(AMBER)}"/>
</svg>
`;
}

function insideTile(x, y) {
  const { x: left, y: top, size, radius } = TILE;
  const cx = Math.min(Math.max(x, left + radius), left + size - radius);
  const cy = Math.min(Math.max(y, top + radius), top + size - radius);
  return (x - cx) ** 2 + (y - cy) ** 2 <= radius ** 2 && x >= left && x <= left + size && y >= top && y <= top + size;
}

function nearSegment(x, y, [x1, y1, x2, y2], half) {
  const dx = x2 - x1;
  const dy = y2 - y1;
  const t = Math.max(0, Math.min(1, ((x - x1) * dx + (y - y1) * dy) / (dx * dx + dy * dy)));
  return (x - x1 - t * dx) ** 2 + (y - y1 - t * dy) ** 2 <= half * half;
}

function nearArc(x, y, { r, from, to }, half) {
  const angle = (Math.atan2(y - NODE.y, x - NODE.x) * 180) / Math.PI;
  const within = [angle, angle + 360, angle - 360].some((a) => a >= from && a <= to);
  if (within) return Math.abs(Math.hypot(x - NODE.x, y - NODE.y) - r) <= half;
  // Round caps: near either end point.
  return [from, to].some((end) => Math.hypot(x - NODE.x - r * Math.cos(rad(end)), y - NODE.y - r * Math.sin(rad(end))) <= half);
}

/** The colour at one sample point, or undefined outside the tile. */
function sample(x, y) {
  if (!insideTile(x, y)) return undefined;
  if (Math.hypot(x - NODE.x, y - NODE.y) <= NODE.r) return AMBER;
  const half = STROKE / 2;
  if (LINES.some((line) => nearSegment(x, y, line, half)) || arcSpans().some((arc) => nearArc(x, y, arc, half))) return WHITE;
  const t = (y - TILE.y) / TILE.size;
  return TILE.top.map((c, i) => c + (TILE.bottom[i] - c) * t);
}

/** RGBA pixels, 4×4 samples per pixel. */
export function iconPixels(size = SIZE) {
  const scale = SIZE / size;
  const pixels = Buffer.alloc(size * size * 4);
  const grid = 4;
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let r = 0;
      let g = 0;
      let b = 0;
      let covered = 0;
      for (let sy = 0; sy < grid; sy++) {
        for (let sx = 0; sx < grid; sx++) {
          const colour = sample((px + (sx + 0.5) / grid) * scale, (py + (sy + 0.5) / grid) * scale);
          if (!colour) continue;
          r += colour[0];
          g += colour[1];
          b += colour[2];
          covered++;
        }
      }
      const at = (py * size + px) * 4;
      if (covered) {
        pixels[at] = Math.round(r / covered);
        pixels[at + 1] = Math.round(g / covered);
        pixels[at + 2] = Math.round(b / covered);
      }
      pixels[at + 3] = Math.round((covered / (grid * grid)) * 255);
    }
  }
  return pixels;
}

function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** An RGBA, 8-bit, non-interlaced PNG. */
export function encodePng(pixels, size) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8;
  header[9] = 6;
  const rows = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) pixels.copy(rows, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(rows, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const here = path.dirname(fileURLToPath(import.meta.url));
  fs.writeFileSync(path.join(here, 'icon.svg'), iconSvg());
  fs.writeFileSync(path.join(here, 'icon.png'), encodePng(iconPixels(SIZE), SIZE));
  console.log('wrote build/icon.svg and build/icon.png');
}
