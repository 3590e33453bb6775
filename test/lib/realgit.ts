/**
 * Real gits for tests: the reftable-capable gits that `scripts/setup-git.sh` builds from Debian's
 * source packages into a cache outside the checkout (`REFSCOPE_GIT_CACHE`, default
 * /var/cache/refscope-git). Tests check refscope against what these gits print, never against
 * what refscope printed.
 *
 *   import { realGits, gitSkipReason, gitRepo } from './lib/realgit.ts';
 *   describe.skipIf(gitSkipReason)('…', () => { for (const g of realGits()) … });
 *
 * A version string is not trusted: `behaviour(g)` says what a build does (whether it writes
 * reftable, whether its merged iterator lets tombstones through), found by running the build
 * once per machine and cached beside it (`<cache>/<version>/behaviour.json`).
 *
 * `refscope(argv)` (test/lib/cli.ts) runs the CLI in-process.
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';
import { spawnSyncLight } from './spawn.ts';

export const GIT_CACHE = process.env.REFSCOPE_GIT_CACHE ?? '/var/cache/refscope-git';

export interface RealGit {
  /** Upstream version as packaged by Debian: `2.47.3`, `2.55.0`, `2.55.0+next.20260731`. */
  version: string;
  /** What `git --version` printed for the build. */
  versionLine: string;
  /** The built source tree (git's own test scripts run from `<src>/t`). */
  src: string;
  /** `bin-wrappers/git`: runs the build in place (exec path and templates from the tree). */
  git: string;
  /** `t/helper/test-tool` through its bin-wrapper (`dump-reftable -b`, …). */
  testTool: string;
}

function discover(): RealGit[] {
  if (!existsSync(GIT_CACHE)) return [];
  const out: RealGit[] = [];
  for (const version of readdirSync(GIT_CACHE).sort()) {
    const dir = join(GIT_CACHE, version);
    if (!existsSync(join(dir, 'OK'))) continue;
    const src = join(dir, 'src');
    out.push({
      version,
      versionLine: readFileSync(join(dir, 'version.txt'), 'utf8').trim(),
      src,
      git: join(src, 'bin-wrappers', 'git'),
      testTool: join(src, 'bin-wrappers', 'test-tool'),
    });
  }
  return out;
}

let cached: RealGit[] | undefined;
/**
 * The gits built and cached on this machine, oldest first. `REFSCOPE_GIT_ONLY=<version>[,…]`
 * keeps only those (to run one git's tests while working on them).
 */
export function realGits(): RealGit[] {
  const only = process.env.REFSCOPE_GIT_ONLY?.split(',').filter(Boolean);
  return (cached ??= discover().filter((g) => !only || only.includes(g.version)));
}

/**
 * The upstream versions scripts/setup-git.sh builds (read from its `versions=(…)` line, so the
 * script stays the one place that names them): `2.47.3`, `2.55.0`, `2.55.0+next.20260731`.
 */
export function expectedVersions(): string[] {
  const script = readFileSync(fileURLToPath(new URL('../../scripts/setup-git.sh', import.meta.url)), 'utf8');
  const line = /^versions=\((.*)\)$/m.exec(script);
  if (!line) return [];
  return [...line[1].matchAll(/"([^"]+)"/g)].map((m) => m[1].replace(/^\d+:/, '').replace(/-[^-]*$/, ''));
}

/** An environment that makes a git run reproducible and independent of the user's config. */
export function gitEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    LANG: 'C',
    LC_ALL: 'C',
    TZ: 'UTC',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: join(home, '.gitconfig'),
    GIT_AUTHOR_NAME: 'A U Thor',
    GIT_AUTHOR_EMAIL: 'author@example.com',
    GIT_AUTHOR_DATE: '1700000000 +0000',
    GIT_COMMITTER_NAME: 'C O Mitter',
    GIT_COMMITTER_EMAIL: 'committer@example.com',
    GIT_COMMITTER_DATE: '1700000000 +0000',
    ...extra,
  };
}

export interface GitResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** Run one git (or test-tool) command; throws with its stderr unless `allowFail`. */
export function run(
  exe: string,
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; input?: string | Uint8Array; allowFail?: boolean },
): GitResult {
  // Through the small helper process (spawn.ts): a real-git test starts thousands of gits.
  const r = spawnSyncLight(exe, args, { cwd: opts.cwd, env: opts.env, input: opts.input, maxBuffer: 1 << 30 });
  const res = {
    status: r.status ?? -1,
    stdout: r.stdout?.toString('latin1') ?? '',
    stderr: r.stderr?.toString() ?? '',
  };
  if (r.error) throw r.error;
  if (res.status !== 0 && !opts.allowFail) {
    throw new Error(`${exe} ${args.join(' ')} (in ${opts.cwd}) exited ${res.status}: ${res.stderr.trim()}`);
  }
  return res;
}

/** A throw-away repository driven by one real git. `dispose()` removes it. */
export interface GitRepo {
  dir: string;
  gitDir: string;
  env: NodeJS.ProcessEnv;
  git(args: string[], input?: string | Uint8Array): string;
  gitResult(args: string[], input?: string | Uint8Array): GitResult;
  testTool(args: string[]): string;
  dispose(): void;
}

/**
 * `git init` a fresh repository (reftable by default) in a temporary folder.
 * `bare`: no work tree; `hash`: `sha1` or `sha256`; `config`: `-c`-style settings written to the
 * repository's config after init (e.g. `{ 'reftable.blockSize': '1024' }`); `env`: extra variables
 * (e.g. `GIT_TEST_REFTABLE_AUTOCOMPACTION: 'false'` turns auto-compaction off, as git's tests do).
 */
export function gitRepo(
  g: RealGit,
  opts: {
    format?: 'reftable' | 'files';
    bare?: boolean;
    hash?: 'sha1' | 'sha256';
    config?: Record<string, string>;
    env?: Record<string, string>;
  } = {},
): GitRepo {
  const root = mkdtempSync(join(tmpdir(), 'refscope-git-'));
  const home = join(root, 'home');
  const dir = join(root, 'repo');
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, '.gitconfig'), '[init]\n\tdefaultBranch = main\n[core]\n\tfsync = none\n');
  const env = gitEnv(home, opts.env ?? {});
  const init = ['init', '-q', `--ref-format=${opts.format ?? 'reftable'}`, `--object-format=${opts.hash ?? 'sha1'}`];
  if (opts.bare) init.push('--bare');
  run(g.git, [...init, dir], { cwd: root, env });
  for (const [k, v] of Object.entries(opts.config ?? {})) run(g.git, ['config', k, v], { cwd: dir, env });
  const gitDir = opts.bare ? dir : join(dir, '.git');
  return {
    dir,
    gitDir,
    env,
    git: (args, input) => run(g.git, args, { cwd: dir, env, input }).stdout,
    gitResult: (args, input) => run(g.git, args, { cwd: dir, env, input, allowFail: true }),
    testTool: (args) => run(g.testTool, args, { cwd: dir, env }).stdout,
    dispose: () => rmSync(root, { recursive: true, force: true }),
  };
}

export interface Behaviour {
  /** `git init --ref-format=reftable` gives a `reftable/tables.list` (the build writes reftable). */
  reftable: boolean;
  /**
   * The merged iterator lets tombstones through, so a bounded seek stops at its bound (git 2.56,
   * `reftable/merged.c merged_iter_next_void` no longer drops deletions; the callers in
   * `refs/reftable-backend.c` skip them): re-creating n refs over n tombstones costs O(n), not
   * O(n²). Told apart by running it: `recreateRatio` below 8 means linear.
   */
  tombstoneFix: boolean;
  /**
   * `test-tool dump-reftable -b` lists index blocks (an `idx:` section). 2.47's
   * `reftable/reader.c reftable_reader_print_blocks` walks only the ref, obj and log sections.
   */
  dumpShowsIndex: boolean;
  /**
   * On a `packed-refs` whose header claims `sorted` while its lines are out of order,
   * for-each-ref prints the lines in the file's order (2.55 trusts the trait while iterating)
   * rather than in byte order (what 2.47 prints).
   */
  packedSortedFileOrder: boolean;
  /** CPU seconds (user + system) of `update-ref --stdin` re-creating n refs over n tombstones. */
  recreateCpu: Record<string, number>;
  /** recreateCpu at the large n over recreateCpu at the small n (median of the rounds run). */
  recreateRatio: number;
  /** `git --version` of the build probed (a rebuilt tree is probed again). */
  versionLine: string;
}

/** The re-create probe's two sizes: 4× apart, so quadratic grows ×16 and linear ×4. */
const PROBE_N = [1000, 4000] as const;
/** The decision: the geometric mean of ×4 and ×16. Ratios within [6, 11] are measured again. */
const PROBE_SPLIT = 8;

/** CPU seconds (user + system, children included) of one command, by bash's `time` keyword. */
function cpuSeconds(cmd: string, cwd: string, env: NodeJS.ProcessEnv): number {
  const r = spawnSync('bash', ['-c', `TIMEFORMAT='%3U %3S'; { time ${cmd} >/dev/null 2>&1 ; } 2>&1`], { cwd, env });
  const m = /([\d.]+) ([\d.]+)\s*$/.exec(r.stdout.toString());
  if (r.status !== 0 || !m) throw new Error(`timing ${cmd} failed: ${r.stdout}${r.stderr}`);
  return Number(m[1]) + Number(m[2]);
}

/** One round of the re-create probe on a build: CPU seconds at each n of PROBE_N. */
function recreateRound(g: RealGit): Record<string, number> {
  const out: Record<string, number> = {};
  for (const n of PROBE_N) {
    // Auto-compaction off: the tombstones must stay in their own table above the refs they hide.
    const repo = gitRepo(g, { env: { GIT_TEST_REFTABLE_AUTOCOMPACTION: 'false' } });
    try {
      repo.git(['commit', '-q', '--allow-empty', '-m', 'probe']);
      const oid = repo.git(['rev-parse', 'HEAD']).trim();
      const names = Array.from({ length: n }, (_, i) => `refs/heads/probe-${i}`);
      const create = names.map((r) => `create ${r} ${oid}\n`).join('');
      repo.git(['update-ref', '--stdin'], create);
      repo.git(['update-ref', '--stdin'], names.map((r) => `delete ${r}\n`).join(''));
      writeFileSync(join(repo.dir, 'create.in'), create);
      out[n] = Math.round(cpuSeconds(`'${g.git}' update-ref --stdin <create.in`, repo.dir, repo.env) * 1000) / 1000;
    } finally {
      repo.dispose();
    }
  }
  return out;
}

function probe(g: RealGit): Behaviour {
  const init = gitRepo(g);
  const reftable = existsSync(join(init.gitDir, 'reftable', 'tables.list'));
  init.dispose();
  // A table with a ref index: 200 refs in 256-byte blocks, written in one transaction.
  const idx = gitRepo(g, {
    config: { 'reftable.blockSize': '256' },
    env: { GIT_TEST_REFTABLE_AUTOCOMPACTION: 'false' },
  });
  let dumpShowsIndex: boolean;
  try {
    idx.git(['commit', '-q', '--allow-empty', '-m', 'probe']);
    const oid = idx.git(['rev-parse', 'HEAD']).trim();
    idx.git(
      ['update-ref', '--stdin'],
      Array.from({ length: 200 }, (_, i) => `create refs/heads/p${i} ${oid}\n`).join(''),
    );
    const list = readFileSync(join(idx.gitDir, 'reftable', 'tables.list'), 'utf8')
      .trim()
      .split('\n');
    dumpShowsIndex = /^idx:$/m.test(
      idx.testTool(['dump-reftable', '-b', join(idx.gitDir, 'reftable', list[list.length - 1])]),
    );
  } finally {
    idx.dispose();
  }
  // packed-refs claiming sorted, lines out of order (b before a): which order does git list?
  const pr = gitRepo(g, { format: 'files' });
  let packedSortedFileOrder: boolean;
  try {
    pr.git(['commit', '-q', '--allow-empty', '-m', 'probe']);
    const oid = pr.git(['rev-parse', 'HEAD']).trim();
    writeFileSync(
      join(pr.gitDir, 'packed-refs'),
      `# pack-refs with: peeled fully-peeled sorted \n${oid} refs/tags/b\n${oid} refs/tags/a\n`,
    );
    const out = pr.git(['for-each-ref', '--format=%(refname)', 'refs/tags/']);
    packedSortedFileOrder = out === 'refs/tags/b\nrefs/tags/a\n';
  } finally {
    pr.dispose();
  }
  const rounds: number[] = [];
  let cpu: Record<string, number> = {};
  for (let i = 0; i < 3; i++) {
    cpu = recreateRound(g);
    rounds.push(cpu[PROBE_N[1]] / Math.max(cpu[PROBE_N[0]], 0.001));
    const r = rounds[rounds.length - 1];
    if (r < 6 || r > 11) break;
  }
  rounds.sort((a, b) => a - b);
  const ratio = rounds[rounds.length >> 1];
  return {
    reftable,
    dumpShowsIndex,
    packedSortedFileOrder,
    tombstoneFix: ratio < PROBE_SPLIT,
    recreateCpu: cpu,
    recreateRatio: Math.round(ratio * 100) / 100,
    versionLine: g.versionLine,
  };
}

const behaviourCache = new Map<string, Behaviour>();
/**
 * What a build does, found by running it once per machine (a few seconds for a quadratic
 * build) and kept in `<cache>/<version>/behaviour.json`; a cache file from another build of the
 * same folder (different `git --version`) is ignored and rewritten.
 */
export function behaviour(g: RealGit): Behaviour {
  let b = behaviourCache.get(g.version);
  if (b) return b;
  const file = join(GIT_CACHE, g.version, 'behaviour.json');
  try {
    const c = JSON.parse(readFileSync(file, 'utf8')) as Behaviour;
    if (
      c.versionLine === g.versionLine &&
      typeof c.tombstoneFix === 'boolean' &&
      typeof c.reftable === 'boolean' &&
      typeof c.dumpShowsIndex === 'boolean' &&
      typeof c.packedSortedFileOrder === 'boolean'
    )
      b = c;
  } catch {
    // absent or unreadable: probe
  }
  if (!b) {
    b = probe(g);
    // Written whole and renamed, so a test file probing at the same time never reads half of it.
    const tmp = `${file}.${process.pid}.tmp`;
    try {
      writeFileSync(tmp, JSON.stringify(b, null, 2) + '\n');
      renameSync(tmp, file);
    } catch {
      // a read-only cache: the probe runs again next time
    }
  }
  behaviourCache.set(g.version, b);
  return b;
}

/** `git for-each-ref --include-root-refs --format='%(objectname) %(refname)'`: what `refscope refs` prints. */
export const FOR_EACH_REF = ['for-each-ref', '--include-root-refs', '--format=%(objectname) %(refname)'];

/**
 * `null` when every git scripts/setup-git.sh builds is in the cache and writes reftable;
 * otherwise one line saying why the real-git tests skip. With `REFSCOPE_GIT_ALLOW_PARTIAL=1`
 * the tests run with whichever builds are ready (while the others are still being built).
 */
export const gitSkipReason: string | null = (() => {
  const only = process.env.REFSCOPE_GIT_ONLY?.split(',').filter(Boolean);
  const want = expectedVersions().filter((v) => !only || only.includes(v));
  const have = realGits().map((g) => g.version);
  const missing = want.filter((v) => !have.includes(v));
  const partial = process.env.REFSCOPE_GIT_ALLOW_PARTIAL === '1' && have.length > 0;
  if (missing.length > 0 && !partial) {
    return `real gits not built (${want.length - missing.length} of ${want.length} in ${GIT_CACHE}, missing ${missing.join(', ')}): run \`npm run setup:git\` (scripts/setup-git.sh)`;
  }
  const broken = realGits()
    .filter((g) => !behaviour(g).reftable)
    .map((g) => g.version);
  if (broken.length > 0)
    return `real gits in ${GIT_CACHE} do not write reftable (${broken.join(', ')}): rebuild with \`npm run setup:git\``;
  return null;
})();

/**
 * `describe` for tests that need the real gits. Without them the block is skipped and named with
 * the one line saying why (vitest lists it as skipped), so a machine without the builds shows
 * the reason instead of a silent empty file.
 */
export function describeRealGit(name: string, fn: () => void): void {
  if (gitSkipReason) {
    console.warn(`${name}: skipped: ${gitSkipReason}`);
    describe.skip(`${name} (skipped: ${gitSkipReason})`, () => {
      it('needs the real gits', () => undefined);
    });
  } else describe(name, fn);
}

/** The segment git merged: the run of tables.list entries replaced by one new table, or null. */
export function mergedSegment(before: string[], after: string[]): { start: number; end: number } | null {
  if (before.join('\n') === after.join('\n')) return null;
  let s = 0;
  while (s < before.length && s < after.length && before[s] === after[s]) s++;
  let e = 0;
  while (e < before.length - s && e < after.length - s && before[before.length - 1 - e] === after[after.length - 1 - e])
    e++;
  if (after.length - s - e !== 1)
    throw new Error(`pack-refs --auto did not replace one run by one table: ${before.join(',')} -> ${after.join(',')}`);
  return { start: s, end: before.length - 1 - e };
}

/** A table as `analyze --json` reports it (the fields the real-git tests compare). */
export interface ReportTable {
  name: string;
  blockSize: number;
  fileSize: number;
  blocks: { type: 'ref' | 'index' | 'obj' | 'log'; blockLen: number; restartCount: number }[];
}

const DUMP_LABEL = { ref: 'ref', index: 'idx', obj: 'obj', log: 'log' } as const;
/**
 * A reported table's blocks in `test-tool dump-reftable -b` terms: section label and the restart
 * table's offset in the block (block_len − 2 − 3 × restarts), restarts. Index blocks are left out
 * for a build whose dump tool does not list them (`behaviour(g).dumpShowsIndex`).
 */
export function reportBlocksAsDump(t: ReportTable, withIndex: boolean): [string, number, number][] {
  return t.blocks
    .filter((b) => withIndex || b.type !== 'index')
    .map((b) => [DUMP_LABEL[b.type], b.blockLen - 2 - 3 * b.restartCount, b.restartCount]);
}
