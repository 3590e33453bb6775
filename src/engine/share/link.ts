/**
 * share/link: the link text `<base>#s=<version>.<base64url(deflate(payload))>`. The fragment never
 * reaches a server.
 */
import { Deflate, deflateSync, inflateSync } from 'fflate';
import { base64UrlDecode, base64UrlEncode } from './base64url.ts';
import { decodeSharePayload, encodeSharePayload } from './codec.ts';
import {
  DEFAULT_SHARE_BASE,
  MAX_INFLATED,
  MAX_LINK_CHARS,
  MAX_LINK_INPUT,
  MAX_SHARED_REPORT_WINNERS,
  SHARE_VERSION,
  ShareLinkError,
  damaged,
  futureVersion,
  sharedWinners,
  tooManyWinners,
} from './limits.ts';
import { type SharePayload } from './payload.ts';
import { reportFromShare } from './rebuild.ts';

/** Result of `encodeShare` / `shareLink`. */
export type ShareLinkResult =
  | { ok: true; link: string; fragment: string; chars: number; payload: SharePayload }
  | { ok: false; error: string; chars: number; payload: SharePayload };

/** `#s=<version>.<data>` of a payload. */
export function shareFragment(p: SharePayload): string {
  return fragmentOf(encodeSharePayload(p));
}

/**
 * Payload bytes handed to the compressor since the process started, and payload bytes encoded
 * (tests read the difference around one call: a refused payload is not compressed whole).
 */
export const linkWork = { deflatedBytes: 0, payloadBytes: 0 };

function fragmentOf(raw: Uint8Array): string {
  linkWork.deflatedBytes += raw.length;
  return `#s=${SHARE_VERSION}.${base64UrlEncode(deflateSync(raw, { level: 9 }))}`;
}

/** Bytes of the payload fed to the compressor at a time while `deflatesPast` watches its output. */
const DEFLATE_SLICE = 16_384;

/**
 * Whether `raw` deflates (level 9) to more than `limit` bytes, stopping as soon as the output
 * passes it: a payload far over what a link holds (thousands of tables) is not compressed whole
 * to be refused. Compressed in slices with the same 32 KiB window, the output differs from
 * `deflateSync`'s by block boundaries only (a few bytes per block), so the caller passes a limit
 * with a wide margin.
 */
function deflatesPast(raw: Uint8Array, limit: number): number | null {
  let out = 0;
  const d = new Deflate({ level: 9 }, (chunk) => {
    out += chunk.length;
  });
  for (let at = 0; at < raw.length; at += DEFLATE_SLICE) {
    const end = Math.min(raw.length, at + DEFLATE_SLICE);
    d.push(raw.subarray(at, end), end === raw.length);
    linkWork.deflatedBytes += end - at;
    if (out > limit) return out;
  }
  return null;
}

/**
 * The link for a payload: `base` (default `DEFAULT_SHARE_BASE`; any fragment of it is dropped)
 * plus the fragment. An error result when the link would exceed `MAX_LINK_CHARS`. With `verify`
 * (the default) the link is decoded and its report rebuilt before it is handed out; a caller
 * that only wants to know whether a payload fits passes false and verifies the link it keeps
 * with `verifyShare`.
 */
export function encodeShare(p: SharePayload, base: string = DEFAULT_SHARE_BASE, verify = true): ShareLinkResult {
  const b = base.includes('#') ? base.slice(0, base.indexOf('#')) : base;
  const winners = sharedWinners(p);
  if (winners > MAX_SHARED_REPORT_WINNERS)
    return {
      ok: false,
      chars: 0,
      payload: p,
      error: tooManyWinners(winners, SHARE_VERSION).message.replace(
        /^link is too large/,
        'the stack is too large for a link',
      ),
    };
  const raw = encodeSharePayload(p);
  linkWork.payloadBytes += raw.length;
  // Twice the compressed bytes a link can hold (4 characters per 3 bytes): a payload past that
  // is refused with the length reached so far, before it is compressed whole.
  const past = raw.length > MAX_LINK_CHARS ? deflatesPast(raw, Math.ceil((2 * MAX_LINK_CHARS * 3) / 4)) : null;
  if (past !== null) {
    const chars = b.length + Math.ceil((past * 4) / 3);
    return {
      ok: false,
      chars,
      payload: p,
      error: `the link would be over ${chars.toLocaleString('en-US')} characters, more than the ${MAX_LINK_CHARS.toLocaleString('en-US')} a link may have: use the file export (refscope export --format json) instead`,
    };
  }
  const fragment = fragmentOf(raw);
  const link = b + fragment;
  if (link.length > MAX_LINK_CHARS) {
    return {
      ok: false,
      chars: link.length,
      payload: p,
      error: `the link would be ${link.length.toLocaleString('en-US')} characters, more than the ${MAX_LINK_CHARS.toLocaleString('en-US')} a link may have: use the file export (refscope export --format json) instead`,
    };
  }
  const r: ShareLinkResult = { ok: true, link, fragment, chars: link.length, payload: p };
  return verify ? verifyShare(r) : r;
}

/** Links decoded and rebuilt by `verifyShare` since the process started (tests count them). */
export const verifyWork = { links: 0 };

/**
 * A link refscope makes, refscope opens: `r` decoded and its report rebuilt, as the page opening
 * it would; `r` itself if that works, else an error result saying why.
 */
export function verifyShare(r: ShareLinkResult): ShareLinkResult {
  if (!r.ok) return r;
  verifyWork.links++;
  try {
    reportFromShare(decodeShare(r.fragment));
  } catch (e) {
    const why =
      e instanceof ShareLinkError ? e.message : `the decoder stopped (${e instanceof Error ? e.message : String(e)})`;
    return {
      ok: false,
      chars: r.chars,
      payload: r.payload,
      error: `this report cannot be put in a link (${why}): use the file export (refscope export --format json) instead`,
    };
  }
  return r;
}

/**
 * Decode a link: a whole URL, its fragment (`#s=…`), or `s=…`. Whitespace (line breaks added by
 * mail clients) is ignored. Throws `ShareLinkError` with reason `not-a-link`, `truncated`,
 * `damaged`, `future-version` or `too-large`; never anything else.
 */
export function decodeShare(text: string): SharePayload {
  if (typeof text !== 'string') throw new ShareLinkError('not-a-link', 'not a refscope share link: no text');
  if (text.length > MAX_LINK_INPUT)
    throw new ShareLinkError(
      'too-large',
      `not a refscope share link: ${text.length} characters, links have at most ${MAX_LINK_CHARS}`,
    );
  let t = text.replace(/\s+/g, '');
  const hash = t.indexOf('#');
  if (hash >= 0) t = t.slice(hash + 1);
  const param = t.split('&').find((x) => x.startsWith('s='));
  if (param === undefined) {
    throw new ShareLinkError(
      'not-a-link',
      'not a refscope share link: it has no "#s=" part (a share link ends in #s=<version>.<data>)',
    );
  }
  const v = param.slice(2);
  const m = /^(\d{1,9})(?:\.(.*))?$/.exec(v);
  if (!m) throw new ShareLinkError('damaged', 'link is damaged: "#s=" is not followed by a format version and a dot');
  const version = Number(m[1]);
  if (version > SHARE_VERSION) throw futureVersion(version);
  if (version < 1) throw new ShareLinkError('damaged', `link is damaged: format version ${version}`);
  if (m[2] === undefined || m[2] === '')
    throw new ShareLinkError('truncated', 'link is truncated: it ends right after the format version', version);
  const deflated = base64UrlDecode(m[2]);
  let raw: Uint8Array;
  try {
    raw = inflateSync(deflated, { out: new Uint8Array(MAX_INFLATED + 1) });
  } catch (e) {
    const code = (e as { code?: number }).code;
    if (code === 0)
      throw new ShareLinkError(
        'truncated',
        'link is truncated: its compressed data ends early (copy the whole link)',
        version,
      );
    throw damaged('its compressed data is invalid');
  }
  if (raw.length > MAX_INFLATED)
    throw new ShareLinkError('too-large', `link is damaged: it unpacks to more than ${MAX_INFLATED} bytes`, version);
  return decodeSharePayload(raw);
}
