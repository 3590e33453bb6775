/**
 * What the input is, from the paths alone (engine `classifyInput`), on layouts a newcomer drops:
 * expected kinds and refs are computed by hand from the file contents written here.
 */
import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { classifyInput, analyzeFiles, analysisRefs, memorySource, type InputFile } from '../src/engine/index.ts';
import { realGits, gitSkipReason, gitRepo, run, type RealGit } from './lib/realgit.ts';

const BIN = path.join(__dirname, '..', 'bin/refscope.mjs');

const A = 'a'.repeat(40),
  B = 'b'.repeat(40),
  C = 'c'.repeat(40);
function f(path: string, text: string): InputFile {
  return { path, source: memorySource(new TextEncoder().encode(text)) };
}

describe('classifyInput', () => {
  // A repository after `git pack-refs --all` / `git gc`: refs/ holds no files, logs/HEAD sits next
  // to logs/refs/: the git directory is .git, not .git/logs.
  const packedGitDir = [
    f('.git/HEAD', 'ref: refs/heads/master\n'),
    f('.git/config', '[core]\n\trepositoryformatversion = 0\n'),
    f(
      '.git/packed-refs',
      `# pack-refs with: peeled fully-peeled sorted \n${A} refs/heads/master\n${B} refs/heads/topic\n${C} refs/tags/v1\n`,
    ),
    f('.git/logs/HEAD', `${'0'.repeat(40)} ${A} A U Thor <a@b> 1700000000 +0000\tcommit (initial): one\n`),
    f('.git/logs/refs/heads/master', `${'0'.repeat(40)} ${A} A U Thor <a@b> 1700000000 +0000\tcommit (initial): one\n`),
  ];
  it('several repositories, stacks or packed-refs side by side are refused, naming them; a deeper one is not a rival', () => {
    const repo = (d: string) => [
      f(`${d}/HEAD`, 'ref: refs/heads/main\n'),
      f(`${d}/packed-refs`, `${A} refs/heads/main\n`),
    ];
    expect(() => classifyInput([...repo('srv/a.git'), ...repo('srv/b.git')])).toThrow(
      'srv: offset 0: expected one repository, found 2 side by side (srv/a.git/, srv/b.git/): give one of them',
    );
    const list = (d: string) => f(`${d}/tables.list`, '');
    expect(() =>
      classifyInput([list('x/reftable'), list('y/reftable'), list('z/reftable'), list('w/reftable')]),
    ).toThrow(
      'the given folder: offset 0: expected one reftable stack, found 4 side by side (w/reftable/, x/reftable/, y/reftable/, …): give one of them',
    );
    expect(() =>
      classifyInput([f('a/packed-refs', `${A} refs/heads/x\n`), f('b/packed-refs', `${B} refs/heads/y\n`)]),
    ).toThrow(/expected one packed-refs file, found 2 side by side \(a\/packed-refs, b\/packed-refs\)/);
    // A repository and a submodule's repository inside it: the shallower one is the input.
    expect(classifyInput([...repo('r'), ...repo('r/modules/sub')]).root).toBe('r/');
  });
  it('a fully packed .git with reflogs is the files backend at .git/', () => {
    const c = classifyInput(packedGitDir);
    expect(c.kind).toBe('files');
    expect(c.root).toBe('.git/');
    // for-each-ref --include-root-refs: HEAD resolves to master's id, then the packed refs.
    expect(analysisRefs(analyzeFiles(packedGitDir))).toEqual([
      { name: 'HEAD', oid: A },
      { name: 'refs/heads/master', oid: A },
      { name: 'refs/heads/topic', oid: B },
      { name: 'refs/tags/v1', oid: C },
    ]);
  });
  it('the logs/ folder given on its own (a reflog HEAD next to refs/) is not a git directory', () => {
    const logs = [
      f('HEAD', `${'0'.repeat(40)} ${A} A U Thor <a@b> 1700000000 +0000\tcommit (initial): one\n`),
      f('refs/heads/master', `${'0'.repeat(40)} ${A} A U Thor <a@b> 1700000000 +0000\tcommit (initial): one\n`),
    ];
    expect(classifyInput(logs).kind).toBe('empty');
    // The same layout with a real HEAD is a files backend.
    expect(classifyInput([f('HEAD', 'ref: refs/heads/master\n'), f('refs/heads/master', `${A}\n`)]).kind).toBe('files');
  });
  it('an unborn repository (HEAD, config, no refs) is a valid, empty files backend', () => {
    const files = [f('HEAD', 'ref: refs/heads/main\n'), f('config', '[core]\n')];
    expect(classifyInput(files).kind).toBe('files');
    expect(analysisRefs(analyzeFiles(files))).toEqual([]);
  });
  it('a working tree holding some other reftable directory: the .git directory wins', () => {
    const files = [...packedGitDir, f('dist/samples/x/reftable/tables.list', '')];
    expect(classifyInput(files).root).toBe('.git/');
  });
  it('a reftable repository: .git/reftable/tables.list', () => {
    const files = [
      f('.git/HEAD', 'ref: refs/heads/.invalid\n'),
      f('.git/refs/heads', ''),
      f('.git/config', '[extensions]\n\trefStorage = reftable\n'),
      f('.git/reftable/tables.list', ''),
    ];
    const c = classifyInput(files);
    expect(c.kind).toBe('reftable');
    expect(c.root).toBe('.git/reftable/');
  });
  it('a lone packed-refs file, and a bare reftable directory', () => {
    expect(classifyInput([f('packed-refs', `${A} refs/heads/x\n`)]).kind).toBe('packed-refs');
    expect(classifyInput([f('reftable/tables.list', '')]).kind).toBe('reftable');
    expect(classifyInput([f('README', 'hello')]).kind).toBe('empty');
  });
});

/** `git for-each-ref --include-root-refs` as "<oid> <name>" lines, run in `cwd`. */
function forEachRef(g: RealGit, cwd: string, env: NodeJS.ProcessEnv): string {
  return run(g.git, ['for-each-ref', '--include-root-refs', '--format=%(objectname) %(refname)'], { cwd, env }).stdout;
}

describe.skipIf(gitSkipReason)('worktrees, as real git lists their refs', () => {
  for (const g of realGits()) {
    for (const format of ['reftable', 'files'] as const) {
      it(`git ${g.version}, ${format}: refs of a linked worktree = for-each-ref run in it`, () => {
        const repo = gitRepo(g, { format });
        try {
          repo.git(['commit', '-q', '--allow-empty', '-m', 'one']);
          repo.git(['tag', '-a', '-m', 'v1', 'v1']);
          // Per-worktree refs of the main worktree: the linked one must not list them.
          repo.git(['update-ref', 'refs/bisect/main-only', 'HEAD']);
          repo.git(['update-ref', 'refs/worktree/main-only', 'HEAD']);
          const wtDir = path.join(path.dirname(repo.dir), 'wt');
          repo.git(['worktree', 'add', '-q', '-b', 'side', wtDir]);
          const inWt = (args: string[]) => run(g.git, args, { cwd: wtDir, env: repo.env }).stdout;
          inWt(['commit', '-q', '--allow-empty', '-m', 'two']);
          inWt(['update-ref', 'refs/worktree/mine', 'HEAD']);
          inWt(['update-ref', 'refs/bisect/bad', 'HEAD~1']);
          inWt(['update-ref', 'ORIG_HEAD', 'HEAD~1']);
          inWt(['symbolic-ref', 'refs/worktree/to-main', 'refs/heads/main']);
          inWt(['update-ref', 'refs/rewritten/x', 'HEAD']);
          inWt(['update-ref', '-d', 'refs/rewritten/x']);
          const want = forEachRef(g, wtDir, repo.env);
          // Sanity: the worktree's own refs and the shared ones, none of the main worktree's.
          expect(want).toContain(' refs/worktree/mine\n');
          expect(want).toContain(' refs/heads/main\n');
          expect(want).not.toContain('main-only');
          const gitDir = path.join(repo.gitDir, 'worktrees', 'wt');
          for (const p of [gitDir, wtDir]) {
            const r = spawnSync(process.execPath, [BIN, 'refs', p], { encoding: 'latin1', timeout: 60_000 });
            expect(r.stderr).toBe('');
            expect(r.stdout).toBe(want);
          }
          // The main worktree still lists its own per-worktree refs and not the linked one's.
          const r = spawnSync(process.execPath, [BIN, 'refs', repo.gitDir], { encoding: 'latin1', timeout: 60_000 });
          expect(r.stdout).toBe(forEachRef(g, repo.dir, repo.env));
        } finally {
          repo.dispose();
          fs.rmSync(path.join(path.dirname(repo.dir), 'wt'), { recursive: true, force: true });
        }
      });
    }
  }
});

describe('a files-backend worktree (hand-built)', () => {
  it("root refs from the worktree, shared refs and packed-refs from commondir, the main worktree's own left out", () => {
    // The worktree has nothing under refs/ (no per-worktree refs yet) and no config: only
    // HEAD, ORIG_HEAD and commondir. The main repository: its own HEAD (on master), a loose
    // main, a packed tag, and refs/bisect/x (the main worktree's: not listed in the linked one).
    const files = [
      f('HEAD', 'ref: refs/heads/main\n'),
      f('ORIG_HEAD', `${C}\n`),
      f('commondir', '../..\n'),
      f('gitdir', '/x/wt/.git\n'),
      f('../../HEAD', 'ref: refs/heads/master\n'),
      f('../../config', '[core]\n'),
      f('../../refs/heads/main', `${A}\n`),
      f('../../refs/bisect/x', `${B}\n`),
      f('../../packed-refs', `# pack-refs with: peeled fully-peeled sorted \n${B} refs/tags/v1\n`),
    ];
    const c = classifyInput(files);
    expect(c.kind).toBe('files');
    expect(c.root).toBe('');
    expect(analysisRefs(analyzeFiles(files))).toEqual([
      { name: 'HEAD', oid: A },
      { name: 'ORIG_HEAD', oid: C },
      { name: 'refs/heads/main', oid: A },
      { name: 'refs/tags/v1', oid: B },
    ]);
  });
});
