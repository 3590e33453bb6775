/**
 * git's own reftable tests as an oracle. Each real git runs its test scripts t0610, t0613, t0614,
 * t1460 and t1400 from its source tree as a maintainer does (`cd t && ./tNNNN-….sh --root=<dir>
 * -d`, `GIT_TEST_DEFAULT_REF_FORMAT=reftable`), keeping the trash directories in the cache folder
 * outside the checkout (`<cache>/<version>/trash/`; a later run on the same machine reuses them).
 * The scripts remove most repositories they make (`test_when_finished "rm -rf repo"`), so an `rm`
 * placed first on their PATH copies every repository it is asked to remove into
 * `<cache>/<version>/trash/snapshots/<script>/` first: the state each test left it in.
 *
 * Then, in every repository found there (a `.git` directory, a bare repository, a worktree's
 * gitdir, nested ones), `refscope refs` must print exactly what that git's
 * `for-each-ref --include-root-refs --format='%(objectname) %(refname)'` prints; where git
 * cannot read the repository (for-each-ref fails, or prints nothing while a no-op transaction
 * fails to prepare), refscope must refuse too (exit 3).
 * The blocks of every table there must equal that git's `test-tool dump-reftable -b`.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  realGits,
  describeRealGit,
  gitEnv,
  run,
  behaviour,
  reportBlocksAsDump,
  FOR_EACH_REF,
  GIT_CACHE,
  type RealGit,
  type ReportTable,
} from './lib/realgit.ts';
import { refscope } from './lib/cli.ts';
import { parseDumpBlocks } from './lib/fixtures.ts';
import { analyzeFiles } from '../src/engine/analyze.ts';
import { collectInput } from '../src/cli/node-input.ts';

const SCRIPTS = [
  't0610-reftable-basics',
  't0613-reftable-write-options',
  't0614-reftable-fsck',
  't1460-refs-migrate',
  't1400-update-ref',
];

/**
 * The `rm` the scripts find first on PATH: before removing a directory inside a trash directory
 * that holds a repository, copy it to the snapshot folder (numbered in removal order).
 */
const RM_SHIM = `#!/bin/bash
trash_prefix="$REFSCOPE_TRASH_ROOT/trash directory."
for a in "$@"; do
  case "$a" in -*) continue ;; esac
  [ -d "$a" ] && [ ! -L "$a" ] || continue
  p=$(cd "$a" 2>/dev/null && pwd -P) || continue
  case "$p" in "$trash_prefix"*/*) ;; *) continue ;; esac
  find "$p" -maxdepth 3 -name HEAD -print -quit 2>/dev/null | grep -q . || continue
  script=\${p#"$trash_prefix"}; script=\${script%%/*}
  dest="$REFSCOPE_TRASH_ROOT/snapshots/$script"
  mkdir -p "$dest"
  n=$(ls "$dest" | wc -l)
  cp -a "$p" "$dest/$(printf %04d "$n")-$(basename "$p")" 2>/dev/null || true
done
exec /bin/rm "$@"
`;

interface ScriptRun {
  script: string;
  /** The script is not in this git's tree (t0614 came after 2.47). */
  absent?: boolean;
  status: number;
  seconds: number;
  counts: string;
}

/** Run (or reuse) git's test scripts for one build; returns what each run did. */
function ensureSuite(g: RealGit): ScriptRun[] {
  const root = path.join(GIT_CACHE, g.version, 'trash');
  fs.mkdirSync(root, { recursive: true });
  const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'refscope-rm-shim-'));
  fs.writeFileSync(path.join(bin, 'rm'), RM_SHIM, { mode: 0o755 });
  const out: ScriptRun[] = [];
  try {
    for (const script of SCRIPTS) {
      const done = path.join(root, `${script}.done.json`);
      if (!fs.existsSync(path.join(g.src, 't', `${script}.sh`))) {
        out.push({ script, absent: true, status: 0, seconds: 0, counts: '' });
        continue;
      }
      if (fs.existsSync(done)) {
        out.push(JSON.parse(fs.readFileSync(done, 'utf8')) as ScriptRun);
        continue;
      }
      fs.rmSync(path.join(root, `trash directory.${script}`), { recursive: true, force: true });
      fs.rmSync(path.join(root, 'snapshots', script), { recursive: true, force: true });
      const t0 = process.hrtime.bigint();
      // A clean environment: test-lib.sh sets HOME and the identities itself. TEST_OUTPUT_DIRECTORY
      // keeps test-results/ out of git's tree; --root puts the trash directory beside it; -d keeps it.
      const r = spawnSync('nice', [`./${script}.sh`, `--root=${root}`, '-d'], {
        cwd: path.join(g.src, 't'),
        env: {
          PATH: `${bin}:/usr/bin:/bin`,
          HOME: root,
          LANG: 'C',
          TEST_OUTPUT_DIRECTORY: root,
          GIT_TEST_DEFAULT_REF_FORMAT: 'reftable',
          REFSCOPE_TRASH_ROOT: root,
        },
        maxBuffer: 1 << 28,
      });
      fs.writeFileSync(
        path.join(root, `${script}.log`),
        Buffer.concat([r.stdout ?? Buffer.alloc(0), r.stderr ?? Buffer.alloc(0)]),
      );
      const countsFile = path.join(root, 'test-results', `${script}.counts`);
      const rec: ScriptRun = {
        script,
        status: r.status ?? -1,
        seconds: Number(process.hrtime.bigint() - t0) / 1e9,
        counts: fs.existsSync(countsFile) ? fs.readFileSync(countsFile, 'utf8').trim().replace(/\n/g, ', ') : '',
      };
      fs.writeFileSync(done, JSON.stringify(rec, null, 2) + '\n');
      out.push(rec);
    }
  } finally {
    fs.rmSync(bin, { recursive: true, force: true });
  }
  return out;
}

/**
 * Every git directory under `dir`, as git's `setup.c is_git_directory` recognises one: `HEAD`
 * plus `objects/` and `refs/`, or `HEAD` plus `commondir` (a worktree's gitdir, whose objects and
 * refs are the common directory's). Scratch folders such as `git refs migrate`'s leftover
 * `ref_migration.*` (a HEAD and a ref store, no objects) are not repositories to git.
 */
export function findGitDirs(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    let ents: fs.Dirent[];
    try {
      ents = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    const names = new Set(ents.map((e) => e.name));
    if (names.has('HEAD') && ((names.has('objects') && names.has('refs')) || names.has('commondir'))) out.push(d);
    for (const e of ents) {
      if (!e.isDirectory() || e.isSymbolicLink()) continue;
      if (e.name === 'objects' || e.name === 'logs' || e.name === 'test-results') continue;
      walk(path.join(d, e.name));
    }
  };
  walk(dir);
  return out.sort();
}

/** A worktree's gitdir (`.git/worktrees/<name>`): checked apart (see below). */
const isWorktreeGitDir = (d: string): boolean => fs.existsSync(path.join(d, 'commondir'));
/** A ref store holding a ref name git refuses to list ("ignoring ref with broken name"). */
const hasBrokenName = (c: Compared): boolean => /ignoring ref with broken name/.test(c.git.stderr);
/** A stack whose tables.list names a table file not ending in `.ref` (git opens it all the same). */
const hasOddTableName = (d: string): boolean => {
  const list = path.join(d, 'reftable', 'tables.list');
  return (
    fs.existsSync(list) &&
    fs
      .readFileSync(list, 'latin1')
      .split('\n')
      .some((n) => n !== '' && !n.endsWith('.ref'))
  );
};

interface Compared {
  repo: string;
  /** git cannot read the ref store: for-each-ref fails, or it prints nothing and a no-op transaction fails to prepare. */
  refused: boolean;
  git: { status: number; stdout: string; stderr: string };
  refscope: { code: number; stdout: string; stderr: string };
}

function disagreement(c: Compared): string | null {
  if (c.refused) {
    return c.refscope.code === 3
      ? null
      : `${c.repo}: git refuses (${c.git.stderr.trim().split('\n')[0]}) but refscope exits ${c.refscope.code}`;
  }
  if (c.refscope.code !== 0)
    return `${c.repo}: git lists ${c.git.stdout.split('\n').length - 1} refs, refscope exits ${c.refscope.code}: ${c.refscope.stderr.trim()}`;
  if (c.refscope.stdout === c.git.stdout) return null;
  const a = new Set(c.git.stdout.split('\n'));
  const b = new Set(c.refscope.stdout.split('\n'));
  const missing = [...a].filter((l) => l && !b.has(l)).slice(0, 3);
  const extra = [...b].filter((l) => l && !a.has(l)).slice(0, 3);
  return `${c.repo}: refs differ (git only: ${JSON.stringify(missing)}; refscope only: ${JSON.stringify(extra)}${!missing.length && !extra.length ? '; order differs' : ''})`;
}

describeRealGit('git test suites: refscope refs equals for-each-ref on every repository they leave', () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'refscope-suite-home-'));
  fs.writeFileSync(path.join(home, '.gitconfig'), '');
  const env = gitEnv(home);
  // REFSCOPE_SUITE_GITS=<version>[,…] runs git's scripts with those builds only (a cold run of
  // all three takes about five minutes on two busy cores; each later run reuses the cache).
  const only = process.env.REFSCOPE_SUITE_GITS?.split(',').filter(Boolean);
  for (const g of realGits().filter((x) => !only || only.includes(x.version))) {
    describe(`git ${g.version}`, () => {
      const compared: Compared[] = [];
      let runs: ScriptRun[] = [];
      beforeAll(async () => {
        runs = ensureSuite(g);
        const root = path.join(GIT_CACHE, g.version, 'trash');
        for (const repo of findGitDirs(root)) {
          const gr = run(g.git, [`--git-dir=${repo}`, ...FOR_EACH_REF], { cwd: repo, env, allowFail: true });
          // git's for-each-ref exits 0 and prints nothing on a stack it cannot read (a truncated table,
          // tables.list naming a missing one); a transaction then fails ("corrupt reftable file").
          // An empty transaction prepared and aborted tells the two apart and writes nothing.
          let refused = gr.status !== 0;
          if (!refused && gr.stdout === '') {
            refused =
              run(g.git, [`--git-dir=${repo}`, 'update-ref', '--stdin'], {
                cwd: repo,
                env,
                input: 'start\nprepare\nabort\n',
                allowFail: true,
              }).status !== 0;
          }
          const rr = await refscope(['refs', repo]);
          compared.push({ repo: path.relative(root, repo), refused, git: gr, refscope: rr });
        }
        const refusals = compared.filter((c) => c.refused).length;
        const worktrees = compared.filter((c) => isWorktreeGitDir(path.join(root, c.repo))).length;
        console.log(
          `git ${g.version}: ${runs.map((r) => (r.absent ? `${r.script} not in this tree` : `${r.script} ${r.seconds.toFixed(0)} s (${r.counts})`)).join('; ')}`,
        );
        console.log(
          `git ${g.version}: ${compared.length} repositories compared (${refusals} refused by git, ${worktrees} worktree gitdirs)`,
        );
      }, 1_800_000);

      it('every script ran to its end', () => {
        for (const r of runs.filter((x) => !x.absent))
          expect(r.counts, `${r.script} (see ${GIT_CACHE}/${g.version}/trash/${r.script}.log)`).toMatch(/^total \d+/);
      });

      it('found the repositories the scripts leave (trash directories and snapshots)', () => {
        // At the least: each script's own trash-directory repository.
        expect(compared.length).toBeGreaterThanOrEqual(SCRIPTS.length);
        expect(compared.some((c) => c.repo.startsWith('snapshots/'))).toBe(true);
      });

      const root = path.join(GIT_CACHE, g.version, 'trash');
      type Kind = 'plain' | 'worktree' | 'brokenName' | 'oddTableName';
      const kindOf = (c: Compared): Kind =>
        isWorktreeGitDir(path.join(root, c.repo))
          ? 'worktree'
          : hasBrokenName(c)
            ? 'brokenName'
            : hasOddTableName(path.join(root, c.repo))
              ? 'oddTableName'
              : 'plain';
      const readable = (k: Kind) => compared.filter((c) => !c.refused && kindOf(c) === k);

      it('refs equal for-each-ref on every repository git reads', () => {
        expect(
          readable('plain')
            .map(disagreement)
            .filter((d) => d !== null),
        ).toEqual([]);
      });

      it('blocks equal test-tool dump-reftable -b in every table of every stack git reads', async () => {
        const bad: string[] = [];
        let blocks = 0;
        let tables = 0;
        for (const c of readable('plain')) {
          const gitDir = path.join(root, c.repo);
          if (c.refscope.code !== 0 || !fs.existsSync(path.join(gitDir, 'reftable', 'tables.list'))) continue;
          const an = await refscope(['analyze', gitDir, '--json']);
          if (an.code !== 0) {
            bad.push(`${c.repo}: analyze exits ${an.code}: ${an.stderr.trim()}`);
            continue;
          }
          for (const t of (JSON.parse(an.stdout) as { tables: ReportTable[] }).tables) {
            const file = path.join(gitDir, 'reftable', t.name);
            const dump = run(g.testTool, ['dump-reftable', '-b', file], { cwd: gitDir, env, allowFail: true });
            if (dump.status !== 0) {
              bad.push(`${c.repo}/${t.name}: dump-reftable fails (${dump.stderr.trim()}) but refscope reads it`);
              continue;
            }
            const truth = parseDumpBlocks(dump.stdout);
            tables++;
            blocks += truth.blocks.length;
            const ours = reportBlocksAsDump(t, behaviour(g).dumpShowsIndex);
            if (t.blockSize !== truth.blockSize || JSON.stringify(ours) !== JSON.stringify(truth.blocks)) {
              bad.push(
                `${c.repo}/${t.name}: blocks differ (block size ${t.blockSize} vs ${truth.blockSize}; ${ours.length} vs ${truth.blocks.length} blocks)`,
              );
            }
          }
        }
        console.log(`git ${g.version}: ${tables} tables, ${blocks} blocks compared with dump-reftable -b`);
        expect(tables).toBeGreaterThan(0);
        expect(bad).toEqual([]);
      }, 600_000);

      it('refuses (exit 3) every repository git cannot read', () => {
        expect(
          compared
            .filter((c) => c.refused)
            .map(disagreement)
            .filter((d) => d !== null),
        ).toEqual([]);
      });

      // In a worktree's gitdir (.git/worktrees/<name>, with commondir) git lists the common refs
      // and the worktree's own (HEAD, refs/heads/main, refs/heads/wt, ORIG_HEAD).
      it("worktree gitdirs: refs equal for-each-ref (the common refs and the worktree's own)", () => {
        const wt = readable('worktree');
        expect(wt.length).toBeGreaterThan(0);
        expect(wt.map(disagreement).filter((d) => d !== null)).toEqual([]);
      });

      // t0610 "ref iterator: bogus names are flagged" stores refs/heads/bogus..name; git's
      // for-each-ref leaves it out ("ignoring ref with broken name").
      it('ref names git rejects are left out of refs, as git leaves them out', () => {
        expect(
          readable('brokenName')
            .map(disagreement)
            .filter((d) => d !== null),
        ).toEqual([]);
      });

      it("each name git warns about is a finding quoting git's warning", () => {
        const missing: string[] = [];
        for (const c of readable('brokenName')) {
          const messages = analyzeFiles(collectInput(path.join(root, c.repo))).findings.map((f) => f.message);
          for (const w of c.git.stderr.match(/ignoring ref with broken name .*/g) ?? [])
            if (!messages.some((m) => m.includes(w))) missing.push(`${c.repo}: ${w}`);
        }
        expect(readable('brokenName').length).toBeGreaterThan(0);
        expect(missing).toEqual([]);
      });

      // t0614 (not in 2.47) renames the table to <name>.abc and lists that; git reads it (and
      // fsck warns badReftableTableName).
      it('tables.list naming files that do not end in .ref: read as git reads them', () => {
        expect(
          readable('oddTableName')
            .map(disagreement)
            .filter((d) => d !== null),
        ).toEqual([]);
      });
    });
  }
});
