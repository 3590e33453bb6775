/**
 * gitversion: which cost model a `git --version` line stands for ("which git is mine").
 *
 * The models (models.ts) are named after the release that changed the cost: `git-2.49` (up to
 * 2.49), `git-2.55` (2.50–2.55: batched availability checks, no dwim reads in update-ref),
 * `git-2.56` (the merged iterator passes tombstones to its callers: reftable/merged.c, the July
 * 2026 change "reftable: fix quadratic behavior in the presence of tombstones"). A user knows
 * their `git --version`, which comes in more shapes than releases:
 * - releases `2.55.0`, maintenance releases `2.47.3`;
 * - release candidates `2.56.0.rc1` (`GIT-VERSION-GEN` turns the tag `v2.56.0-rc1` into that);
 * - development builds `2.55.GIT` (a build from a checkout without tags: `GIT-VERSION-GEN`'s
 *   default), `2.55.0.123.gabcdef0` (`git describe` of a commit past a tag), `…dirty`;
 * - distribution snapshots `2.55.0+next.20260731` (Debian's experimental `next`);
 * - vendor builds: `2.39.5 (Apple Git-154)`, `2.47.1.windows.2` (Git for Windows), `…vfs…`.
 * Reftable itself exists from git 2.45 (`--ref-format=reftable`); older gits have only the files
 * backend.
 *
 * A development build or a snapshot may or may not contain the July 2026 fix; the mapping says so
 * and names both models, and the measure script (measure.ts) settles it by running that git.
 */
import type { ModelName } from './models.ts';

/** What a `git --version` line says. */
export interface GitVersionInfo {
  /** The line as given, trimmed. */
  input: string;
  /** major.minor.patch as numbers (patch 0 when absent). */
  major: number;
  minor: number;
  patch: number;
  /** `release`, `rc` (release candidate), `development` (untagged build or snapshot). */
  kind: 'release' | 'rc' | 'development';
  /** Vendor of the build when the line names one (Apple, Windows, VFS). */
  vendor: string | null;
  /** The reftable model this git is priced with; null when it has no reftable (before 2.45). */
  model: ModelName | null;
  /** The other model the build may stand for (development builds around a model's boundary). */
  alternative: ModelName | null;
  /** Whether this git can read and write reftable stacks. */
  reftable: boolean;
  /** One or two sentences for the user: which model and why, what to check. */
  note: string;
}

/** The July 2026 change that makes the `git-2.56` model. */
export const TOMBSTONE_FIX = 'reftable: fix quadratic behavior in the presence of tombstones';

/** The model for a released major.minor (reftable gits only). */
export function modelForRelease(major: number, minor: number): ModelName | null {
  const v = major * 1000 + minor;
  if (v < 2045) return null;
  if (v <= 2049) return 'git-2.49';
  if (v <= 2055) return 'git-2.55';
  return 'git-2.56';
}

/**
 * Parse a `git --version` line (or just the version) and map it to a model. Throws Error with a
 * message naming what was expected when the line holds no version.
 */
export function parseGitVersion(line: string): GitVersionInfo {
  const input = line.trim();
  const body = input.replace(/^git\s+version\s+/i, '');
  const m = /^(\d+)\.(\d+)(?:\.(\d+))?(.*)$/s.exec(body);
  if (!m)
    throw new Error(
      `git version: expected a line like "git version 2.55.0" (the output of git --version), found ${JSON.stringify(input.slice(0, 80))}`,
    );
  const major = Number(m[1]);
  const minor = Number(m[2]);
  const patch = m[3] === undefined ? 0 : Number(m[3]);
  let rest = m[4] ?? '';
  let vendor: string | null = null;
  const apple = /\(Apple Git-[\d.]+\)/i.exec(rest);
  if (apple) {
    vendor = apple[0].slice(1, -1);
    rest = rest.replace(apple[0], '');
  }
  const win = /\.windows\.\d+/i.exec(rest);
  if (win) {
    vendor = `Git for Windows${win[0].replace(/^\.windows/i, '')}`;
    rest = rest.replace(win[0], '');
  }
  const vfs = /\.vfs\.[\d.]+/i.exec(rest);
  if (vfs) {
    vendor = `VFS for Git${vfs[0].replace(/^\.vfs/i, '')}`;
    rest = rest.replace(vfs[0], '');
  }
  rest = rest.trim();
  const ver = `${major}.${minor}${m[3] === undefined ? '' : `.${patch}`}`;
  let kind: GitVersionInfo['kind'] = 'release';
  const rc = /^[.-]?rc(\d+)/i.exec(rest);
  const snapshot = /^\+next\.(\d{8})/i.exec(rest);
  if (rc) kind = 'rc';
  else if (m[3] === undefined && /^\.GIT\b/i.test(rest)) kind = 'development';
  else if (snapshot || /^\.GIT\b/i.test(rest) || /^\.\d+\.g[0-9a-f]{4,}/i.test(rest) || /dirty/i.test(rest))
    kind = 'development';
  else if (rest && !/^[\s()]*$/.test(rest)) kind = 'development';

  const base = modelForRelease(major, minor);
  const info: GitVersionInfo = {
    input,
    major,
    minor,
    patch,
    kind,
    vendor,
    model: base,
    alternative: null,
    reftable: base !== null,
    note: '',
  };
  const by = vendor ? ` (${vendor})` : '';
  if (base === null) {
    info.note = `git ${ver}${by} has no reftable support (it arrived in git 2.45): only the files model applies.`;
    return info;
  }
  if (kind === 'release') {
    info.note = `git ${ver}${by} is a release of the ${base} model (${describe(base)}).`;
    return info;
  }
  if (kind === 'rc') {
    // A release candidate is the coming release: 2.56.0.rc1 is priced as 2.56.
    info.note = `git ${ver}.rc${rc![1]}${by} is a release candidate of ${major}.${minor}: priced as ${base} (${describe(base)}).`;
    return info;
  }
  // Development builds: the code past the last tag of `major.minor`, on its way to the next
  // release. The one boundary that matters inside such a range is the tombstone fix.
  if (base === 'git-2.55') {
    info.alternative = 'git-2.56';
    const snap = snapshot
      ? ` (a snapshot of ${snapshot[1].slice(0, 4)}-${snapshot[1].slice(4, 6)}-${snapshot[1].slice(6)})`
      : '';
    if (snapshot && Number(snapshot[1]) >= 20260731) {
      info.model = 'git-2.56';
      info.alternative = 'git-2.55';
      info.note = `${body}${snap} is a development build after git ${major}.${minor}; snapshots of git's next branch from the end of July 2026 carry the fix '${TOMBSTONE_FIX}': priced as git-2.56. If it is older, choose git-2.55; the measure script tells by running it.`;
    } else {
      info.note = `${body}${by}${snap} is a development build after git ${major}.${minor}: if your build contains the July 2026 fix '${TOMBSTONE_FIX}', choose git-2.56; otherwise git-2.55 (the default here). The measure script tells by running it.`;
    }
    return info;
  }
  if (base === 'git-2.49' && minor === 49) {
    info.alternative = 'git-2.55';
    info.note = `${body}${by} is a development build after git 2.49: builds that already batch the availability check (2.50's "refs: batch refname availability checks") are git-2.55; priced as git-2.49.`;
    return info;
  }
  info.note = `${body}${by} is a development build after git ${major}.${minor}: priced as ${base} (${describe(base)}).`;
  return info;
}

function describe(m: ModelName): string {
  return m === 'git-2.49'
    ? 'git ≤ 2.49'
    : m === 'git-2.55'
      ? 'git 2.50–2.55'
      : m === 'git-2.56'
        ? 'git 2.56 and later, with the tombstone fix'
        : m;
}
