/** share/base64url: RFC 4648 §5 base64url without padding, for the link's data. */
import { SHARE_VERSION, ShareLinkError, damaged } from './limits.ts';

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const B64_INV = new Int16Array(128).fill(-1);
for (let i = 0; i < 64; i++) B64_INV[B64.charCodeAt(i)] = i;

/** base64url without padding (RFC 4648 §5). */
export function base64UrlEncode(b: Uint8Array): string {
  let s = '';
  let i = 0;
  for (; i + 2 < b.length; i += 3) {
    const v = (b[i] << 16) | (b[i + 1] << 8) | b[i + 2];
    s += B64[v >> 18] + B64[(v >> 12) & 63] + B64[(v >> 6) & 63] + B64[v & 63];
  }
  if (i + 1 === b.length) {
    const v = b[i] << 16;
    s += B64[v >> 18] + B64[(v >> 12) & 63];
  } else if (i + 2 === b.length) {
    const v = (b[i] << 16) | (b[i + 1] << 8);
    s += B64[v >> 18] + B64[(v >> 12) & 63] + B64[(v >> 6) & 63];
  }
  return s;
}

/** Inverse of `base64UrlEncode`; throws `ShareLinkError` on a bad character or an impossible length. */
export function base64UrlDecode(s: string): Uint8Array {
  if (s.length % 4 === 1)
    throw new ShareLinkError(
      'truncated',
      'link is truncated: its data has an impossible length (a character is missing)',
      SHARE_VERSION,
    );
  const out = new Uint8Array(Math.floor((s.length * 3) / 4));
  let o = 0,
    acc = 0,
    bits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const v = c < 128 ? B64_INV[c] : -1;
    if (v < 0)
      throw damaged(
        `character ${JSON.stringify(s[i])} at position ${i + 1} of the data is not base64url (A–Z, a–z, 0–9, -, _)`,
      );
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  return out.subarray(0, o);
}
