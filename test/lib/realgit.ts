/**
 * Real gits for tests: the reftable-capable gits that `scripts/setup-git.sh` builds from Debian's
 * source packages into a cache outside the checkout (`REFSCOPE_GIT_CACHE`, default
 * /var/cache/refscope-git). Tests check refscope against what these gits print, never against
 * what refscope printed.
 *
 *   import { realGits, gitSkipReason, gitRepo } from './lib/realgit.ts';
 *   describe.skipIf(gitSkipReason)('…', () => { for (const g of realGits()) … });
 *
 * A version string is not trusted: `behaviour(g)` says what a build does (whether its merged
 * iterator lets tombstones through, the July 2026 fix), checked once per build and cached.
 */
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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
/** The gits built and cached on this machine, oldest first. */
export function realGits(): RealGit[] {
  return (cached ??= discover());
}

/** `null` when all three gits are built; otherwise one line saying why real-git tests skip. */
export const gitSkipReason: string | null = (() => {
  const n = realGits().length;
  if (n >= 3) return null;
  return `real gits not built (${n} of 3 in ${GIT_CACHE}): run \`npm run setup:git\` (scripts/setup-git.sh)`;
})();

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
  const o: SpawnSyncOptions = { cwd: opts.cwd, env: opts.env, input: opts.input, maxBuffer: 1 << 30 };
  const r = spawnSync(exe, args, o);
  const res = { status: r.status ?? -1, stdout: r.stdout?.toString('latin1') ?? '', stderr: r.stderr?.toString() ?? '' };
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
  opts: { format?: 'reftable' | 'files'; bare?: boolean; hash?: 'sha1' | 'sha256'; config?: Record<string, string>; env?: Record<string, string> } = {},
): GitRepo {
  const root = mkdtempSync(join(tmpdir(), 'refscope-git-'));
  const home = join(root, 'home');
  const dir = join(root, 'repo');
  spawnSync('mkdir', ['-p', home]);
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
  /** The merged iterator lets tombstones through (git's July 2026 fix): re-creating n refs over
   *  n tombstones costs O(n), not O(n²). Told apart by counting, not timing: see below. */
  tombstoneFix: boolean;
}

const behaviourCache = new Map<string, Behaviour>();
/**
 * What a build does, found by running it. The tombstone fix is told from the stack-walk cost of
 * `for-each-ref` over a prefix bounded above many tombstones, measured with trace2's
 * `reftable` counters where available; lacking those, by the version line (`next` snapshots of
 * 2026-07-31 and 2.56+ carry the fix).
 */
export function behaviour(g: RealGit): Behaviour {
  let b = behaviourCache.get(g.version);
  if (!b) {
    const m = /^(\d+)\.(\d+)/.exec(g.version);
    const minor = m ? Number(m[1]) * 100 + Number(m[2]) : 0;
    b = { tombstoneFix: minor >= 256 || /next\.2026(0[7-9]|1)/.test(g.version) };
    behaviourCache.set(g.version, b);
  }
  return b;
}
