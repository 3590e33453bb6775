/**
 * JGit as a second reftable implementation, for tests: runs Debian's `jgit-cli` (JGit 4.11) with
 * `java -cp <jars> org.eclipse.jgit.pgm.Main <command>` inside a throw-away repository
 * (shared/fixtures/README.md, "JGit as a second implementation"). JGit 4.11 reads format v1
 * (SHA-1) tables only.
 *
 * Use `jgit.available` with `describe.skipIf(!jgit.available)`; `jgit.why` says why it is not.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const JAR_DIR = '/usr/share/java';
/** The jars `org.eclipse.jgit.pgm.Main` needs (Debian's /usr/bin/jgit wrapper misses some). */
export const JGIT_JARS = [
  'org.eclipse.jgit.jar',
  'org.eclipse.jgit.pgm.jar',
  'org.eclipse.jgit.lfs.jar',
  'org.eclipse.jgit.http.apache.jar',
  'org.eclipse.jgit.archive.jar',
  'args4j.jar',
  'jsch.jar',
  'jzlib.jar',
  'javaewah.jar',
  'slf4j-api.jar',
  'slf4j-nop.jar',
  'httpclient.jar',
  'httpcore.jar',
  'commons-logging.jar',
  'commons-compress.jar',
  'gson.jar',
];

function probe(): { available: boolean; why: string } {
  const java = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (java.error || java.status !== 0)
    return { available: false, why: `java is not runnable (${java.error?.message ?? `exit ${java.status}`})` };
  const missing = JGIT_JARS.filter((j) => !existsSync(join(JAR_DIR, j)));
  if (missing.length)
    return {
      available: false,
      why: `JGit jars missing in ${JAR_DIR}: ${missing.join(', ')} (apt-get install jgit-cli)`,
    };
  return { available: true, why: '' };
}

const state = probe();
if (!state.available) console.warn(`[jgit] JGit tests skipped: ${state.why}`);

let repoDir: string | null = null;
/** An empty repository for JGit to run in (JGit insists on one); created once per process. */
function repo(): string {
  if (repoDir) return repoDir;
  const d = mkdtempSync(join(tmpdir(), 'refscope-jgit-'));
  mkdirSync(join(d, '.git', 'objects'), { recursive: true });
  mkdirSync(join(d, '.git', 'refs', 'heads'), { recursive: true });
  writeFileSync(join(d, '.git', 'HEAD'), 'ref: refs/heads/master\n');
  writeFileSync(join(d, '.git', 'config'), '[core]\n\trepositoryformatversion = 0\n\tbare = false\n');
  repoDir = d;
  process.on('exit', () => rmSync(d, { recursive: true, force: true }));
  return d;
}

/** Run `jgit <args>`; returns exit status, stdout and stderr. */
export function runJGit(args: string[]): { status: number; stdout: string; stderr: string } {
  const cp = JGIT_JARS.map((j) => join(JAR_DIR, j)).join(':');
  const r = spawnSync('java', ['-cp', cp, 'org.eclipse.jgit.pgm.Main', ...args], {
    cwd: repo(),
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  if (r.error) throw r.error;
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

let batchClasses: string | null | undefined;
/**
 * test/jgit/RefscopeBatch.java compiled once per process into a temporary directory; null when
 * there is no javac (jgit-cli needs only a JRE), and the commands then run one JVM each.
 */
function batchClassDir(cp: string): string | null {
  if (batchClasses !== undefined) return batchClasses;
  const d = mkdtempSync(join(tmpdir(), 'refscope-jgit-batch-'));
  process.on('exit', () => rmSync(d, { recursive: true, force: true }));
  const src = fileURLToPath(new URL('./jgit/RefscopeBatch.java', import.meta.url));
  const r = spawnSync('javac', ['-nowarn', '-cp', cp, '-d', d, src], { encoding: 'utf8' });
  if (r.error && (r.error as NodeJS.ErrnoException).code === 'ENOENT') return (batchClasses = null);
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`javac RefscopeBatch.java failed (${r.status}): ${r.stderr}`);
  return (batchClasses = d);
}

/**
 * Run several `jgit <args>` commands in one JVM (test/jgit/RefscopeBatch.java runs each through
 * JGit's own Main, as the jgit command does); each gets its exit status, stdout and stderr. A
 * JVM start with JGit loaded costs about a CPU second, which dominated the tests that read many
 * tables.
 */
export function runJGitBatch(commands: string[][]): { status: number; stdout: string; stderr: string }[] {
  if (!commands.length) return [];
  const cp = JGIT_JARS.map((j) => join(JAR_DIR, j)).join(':');
  const classes = batchClassDir(cp);
  if (classes === null) return commands.map((c) => runJGit(c));
  const d = mkdtempSync(join(tmpdir(), 'refscope-jgit-run-'));
  try {
    writeFileSync(join(d, 'commands'), commands.map((c) => c.join('\t') + '\n').join(''));
    const r = spawnSync('java', ['-cp', `${classes}:${cp}`, 'org.eclipse.jgit.pgm.RefscopeBatch', d], {
      cwd: repo(),
      encoding: 'utf8',
    });
    if (r.error) throw r.error;
    if (r.status !== 0) throw new Error(`jgit batch failed (${r.status}): ${r.stderr}`);
    return commands.map((_, i) => ({
      status: Number(readFileSync(join(d, `status-${i}`), 'utf8')),
      stdout: readFileSync(join(d, `out-${i}`), 'utf8'),
      stderr: readFileSync(join(d, `err-${i}`), 'utf8'),
    }));
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
}

/** Write `bytes` to a temporary file, call `fn` with its path, remove it. */
export function withTempFile<T>(name: string, bytes: Uint8Array | string, fn: (path: string) => T): T {
  const d = mkdtempSync(join(tmpdir(), 'refscope-jgit-file-'));
  const p = join(d, name);
  writeFileSync(p, bytes);
  try {
    return fn(p);
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
}

export const jgit = {
  /** True when java and the JGit jars are present. */
  available: state.available,
  /** Why JGit is not available ('' when it is). */
  why: state.why,
  /**
   * `jgit debug-read-reftable FILE`: the table's live refs in table order, one line each:
   * `<oid>\t<name>`, then `^<peeled>` for peeled refs; `<target>\t<name>` for symrefs.
   * Tombstones and logs are not printed. Throws with JGit's stderr when it fails.
   */
  readReftable(bytes: Uint8Array): string[] {
    return withTempFile('t.ref', bytes, (p) => {
      const r = runJGit(['debug-read-reftable', p]);
      if (r.status !== 0) throw new Error(`jgit debug-read-reftable failed (${r.status}): ${r.stderr}`);
      return r.stdout.split('\n').filter((l) => l.length > 0);
    });
  },
  /**
   * `readReftable` of many tables in one JVM: the lines of each, in order. Throws with JGit's
   * stderr when one fails.
   */
  readReftables(tables: Uint8Array[]): string[][] {
    const d = mkdtempSync(join(tmpdir(), 'refscope-jgit-tables-'));
    try {
      const files = tables.map((bytes, i) => {
        const p = join(d, `t${i}.ref`);
        writeFileSync(p, bytes);
        return p;
      });
      return runJGitBatch(files.map((p) => ['debug-read-reftable', p])).map((r, i) => {
        if (r.status !== 0) throw new Error(`jgit debug-read-reftable of table ${i} failed (${r.status}): ${r.stderr}`);
        return r.stdout.split('\n').filter((l) => l.length > 0);
      });
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  },
  /** `verifyReftable` of many tables in one JVM: JGit's exit status and stderr for each. */
  verifyReftables(cases: { lines: string[]; bytes: Uint8Array }[]): { status: number; stderr: string }[] {
    const d = mkdtempSync(join(tmpdir(), 'refscope-jgit-tables-'));
    try {
      const commands = cases.map((c, i) => {
        const t = join(d, `t${i}.ref`);
        const l = join(d, `refs${i}.txt`);
        writeFileSync(t, c.bytes);
        writeFileSync(l, c.lines.join('\n') + '\n');
        return ['debug-verify-reftable', l, t];
      });
      return runJGitBatch(commands).map((r) => ({ status: r.status, stderr: r.stderr }));
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  },
  /**
   * `jgit debug-verify-reftable LINES FILE`: JGit checks a sequential scan, a seek of every ref
   * (through the ref index when there is one) and a lookup by object id of every object (through
   * the obj index when there is one) against `lines` (ls-remote format: `<oid> <name>`, a
   * following `<peeled> <name>^{}` for peeled tags; a `HEAD` line is taken as a symref to
   * refs/heads/master). Returns JGit's exit status and stderr.
   */
  verifyReftable(lines: string[], bytes: Uint8Array): { status: number; stderr: string } {
    return withTempFile('t.ref', bytes, (p) =>
      withTempFile('refs.txt', lines.join('\n') + '\n', (l) => {
        const r = runJGit(['debug-verify-reftable', l, p]);
        return { status: r.status, stderr: r.stderr };
      }),
    );
  },
};
