#!/usr/bin/env node
// Draw the web app's icons (the refscope "stack" logo) as PNGs into public/icons/.
// No dependencies: shapes are rasterised with 4×4 supersampling and written with node:zlib.
//
//   node scripts/make-icons.mjs
//
// The output is committed; run this again only to change the icons.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'public/icons');

/** Background (the app's accent, a little darker) and the logo's colour. */
const BG = [0x24, 0x56, 0xb8];
const FG = [0xff, 0xff, 0xff];
/** The logo as in App.tsx: three rounded bars in a 24×24 box (x, y, w, h, r). */
const BARS = [
  [3, 15, 18, 5, 1],
  [5, 9, 14, 4, 1],
  [8, 4, 8, 3, 1],
];
/** Bounding box of the bars in logo units. */
const LOGO = { x: 3, y: 4, w: 18, h: 16 };

function inRoundRect(px, py, x, y, w, h, r) {
  if (px < x || py < y || px > x + w || py > y + h) return false;
  const cx = Math.min(Math.max(px, x + r), x + w - r);
  const cy = Math.min(Math.max(py, y + r), y + h - r);
  return (px - cx) ** 2 + (py - cy) ** 2 <= r * r;
}

/**
 * One icon of `size` px. `full`: the background fills the square (maskable / apple-touch icons,
 * the platform applies its own mask); otherwise a rounded square with transparent corners.
 * `logoFrac`: the logo's width as a fraction of the icon.
 */
function draw(size, { full, logoFrac }) {
  const rgba = new Uint8Array(size * size * 4);
  const corner = full ? 0 : size * 0.2;
  const scale = (size * logoFrac) / LOGO.w;
  const ox = (size - LOGO.w * scale) / 2 - LOGO.x * scale;
  const oy = (size - LOGO.h * scale) / 2 - LOGO.y * scale;
  const S = 4;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      let bg = 0;
      let fg = 0;
      for (let sy = 0; sy < S; sy++) {
        for (let sx = 0; sx < S; sx++) {
          const px = x + (sx + 0.5) / S;
          const py = y + (sy + 0.5) / S;
          if (!inRoundRect(px, py, 0, 0, size, size, corner)) continue;
          bg++;
          const lx = (px - ox) / scale;
          const ly = (py - oy) / scale;
          if (BARS.some(([bx, by, bw, bh, br]) => inRoundRect(lx, ly, bx, by, bw, bh, br))) fg++;
        }
      }
      const a = bg / (S * S);
      const f = bg ? fg / bg : 0;
      const i = (y * size + x) * 4;
      for (let c = 0; c < 3; c++) rgba[i + c] = Math.round(BG[c] * (1 - f) + FG[c] * f);
      rgba[i + 3] = Math.round(a * 255);
    }
  }
  return rgba;
}

const CRC_TABLE = new Uint32Array(256).map((_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  Buffer.from(data).copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** An 8-bit RGBA PNG. */
export function png(size, rgba) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) {
    raw[y * (size * 4 + 1)] = 0; // filter: none
    Buffer.from(rgba.buffer, y * size * 4, size * 4).copy(raw, y * (size * 4 + 1) + 1);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const ICONS = [
  // "any" purpose: rounded square, logo large.
  { file: 'icon-192.png', size: 192, full: false, logoFrac: 0.66 },
  { file: 'icon-512.png', size: 512, full: false, logoFrac: 0.66 },
  // maskable: full bleed, logo inside the safe zone (a centred circle of 80 % of the size).
  { file: 'maskable-512.png', size: 512, full: true, logoFrac: 0.5 },
  // iOS home screen (the system rounds the corners itself).
  { file: 'apple-touch-icon-180.png', size: 180, full: true, logoFrac: 0.6 },
  // Browser tab.
  { file: 'favicon-32.png', size: 32, full: false, logoFrac: 0.72 },
];

fs.mkdirSync(OUT, { recursive: true });
for (const i of ICONS) {
  const bytes = png(i.size, draw(i.size, i));
  fs.writeFileSync(path.join(OUT, i.file), bytes);
  console.log(`${path.relative(ROOT, path.join(OUT, i.file))}: ${i.size}×${i.size}, ${bytes.length} bytes`);
}
