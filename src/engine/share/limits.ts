/**
 * share/limits: the bounds a share link is held to (sizes, counts, lengths) and the one error of
 * the link decoder. Every bound is named here so a message can say which one was hit.
 */
import { FormatError, oneLine } from '../basics.ts';
import { type SharePayload } from './payload.ts';

/** Format version this refscope writes and reads. */
export const SHARE_VERSION = 1;
/** Schema name of a decoded payload. */
export const SHARE_SCHEMA = 'refscope.share/1';
/** Default base URL of links (the local app, `npm start`). */
export const DEFAULT_SHARE_BASE = 'http://127.0.0.1:4173/';
/** No link is longer than this (characters, base URL included); past it, use the file export. */
export const MAX_LINK_CHARS = 8000;
/** Links are meant to stay under this for typical stacks. */
export const TYPICAL_LINK_CHARS = 2000;
/** Default number of example ref names with `withNames`. */
export const DEFAULT_EXAMPLE_NAMES = 20;
/** Largest inflated payload accepted (bytes). */
export const MAX_INFLATED = 1 << 20;
/** Largest link text accepted by the decoder (characters). */
export const MAX_LINK_INPUT = 100_000;
/** Largest stack `shapePlan` (and so the repro script) lays out (records over all tables). */
export const MAX_SYNTHETIC_RECORDS = 20_000_000;
/** Largest stack `syntheticStack` builds in memory (ref + log records over all tables; live refs for files links). */
export const MAX_BROWSER_SYNTHETIC_RECORDS = 5_000_000;
/** Largest total size of unreadable tables `syntheticStack` writes as zero bytes. */
export const MAX_SYNTHETIC_UNREADABLE_BYTES = 64 << 20;
/**
 * Most tables a link may declare. Every view lists each table: past a few thousand the page
 * would spend seconds drawing them (links of real stacks that large exceed `MAX_LINK_CHARS` anyway).
 */
export const MAX_SHARE_TABLES = 5_000;
/** Most records (ref + log + obj + index, all tables; live refs for files links) a link may declare. */
export const MAX_SHARE_RECORDS = 50_000_000;
/** Most blocks (all sections, all tables) a link may declare: the shared report lists each one. */
export const MAX_SHARE_BLOCKS = 2_000_000;
/** Most distinct object ids a table may declare (the repro script makes that many commits). */
export const MAX_SHARE_OIDS = 10_000_000;
/**
 * Most winning records (live refs and winning tombstones) a shared report is rebuilt for: the
 * stand-in merged view has one entry per winner (about 1 s and 200 MB at this size).
 */
export const MAX_SHARED_REPORT_WINNERS = 5_000_000;
/** Longest diagnosis text carried in the measured extras (characters). */
export const MAX_SHARED_DIAGNOSIS = 4000;
/** Longest generator text (bytes). */
export const MAX_GENERATOR_BYTES = 200;
/** Most namespaces, and the longest namespace name (bytes). */
export const MAX_NAMESPACES = 10_000;
export const MAX_NAMESPACE_BYTES = 1024;
/** Most (table, namespace, kind) record counts, overlaps and hiding counts (each). */
export const MAX_SHARE_ENTRIES = 4_000_000;
/** Most finding texts, and the longest one (bytes; a longer one is cut with a mark when the link is made). */
export const MAX_FINDINGS = 100_000;
export const MAX_FINDING_BYTES = 8192;
/** Most example names, and the longest one (bytes; a longer name is left out when the link is made). */
export const MAX_EXAMPLES = 10_000;
export const MAX_EXAMPLE_BYTES = 8192;
/** Deepest nesting and most values of the simulation results a decoder accepts. */
export const MAX_SIM_DEPTH = 10;
export const MAX_SIM_VALUES = 5000;
/** What a text cut to fit a link ends with. */
export const CUT_MARK = '…';
/** What a diagnosis carried by a link starts with in the shared report (it is the sharer's text, not refscope's). */
export const SHARED_DIAGNOSIS_PREFIX = 'Diagnosis as shared: ';

/** Why a link could not be read. */
export type ShareErrorReason = 'not-a-link' | 'truncated' | 'damaged' | 'future-version' | 'too-large';

/**
 * The one error of the decoder (and of `syntheticStack` for a stack too large to build): the
 * engine's `FormatError` with the link as its file, so every caller that reports bad input
 * reports a bad link the same way. `message` is a sentence for the user: "link is truncated …",
 * "link was made by a newer refscope (version N) …", "link is damaged: …".
 */
export class ShareLinkError extends FormatError {
  constructor(
    public readonly reason: ShareErrorReason,
    message: string,
    /** The link's format version when known. */
    public readonly linkVersion: number | null = null,
  ) {
    super('(link)', -1, `a refscope share link (${message})`);
    this.message = oneLine(message);
    this.name = 'ShareLinkError';
  }
}

export function damaged(what: string): ShareLinkError {
  return new ShareLinkError('damaged', `link is damaged: ${what}`, SHARE_VERSION);
}

export function futureVersion(v: number): ShareLinkError {
  return new ShareLinkError(
    'future-version',
    `link was made by a newer refscope (version ${v}); this refscope reads version ${SHARE_VERSION} links: open it with a newer refscope`,
    v,
  );
}

/** Winning records of a payload (the entries of the stand-in merged view of `reportFromShare`). */
export function sharedWinners(p: SharePayload): number {
  return p.nsRecords.reduce((s, e) => s + e.winners, 0);
}
export function tooManyWinners(winners: number, version: number | null): ShareLinkError {
  return new ShareLinkError(
    'too-large',
    `link is too large: its stack has ${fmt(winners)} winning records, a shared report is rebuilt for at most ${fmt(MAX_SHARED_REPORT_WINNERS)} (use the file export: refscope export --format json)`,
    version,
  );
}

export function fmt(n: number): string {
  return n.toLocaleString('en-US');
}
export function plural(n: number, one: string, many = one + 's'): string {
  return `${fmt(n)} ${n === 1 ? one : many}`;
}
