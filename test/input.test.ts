/**
 * What the input is, from the paths alone (engine `classifyInput`), on layouts a newcomer drops:
 * expected kinds and refs are computed by hand from the file contents written here.
 */
import { describe, it, expect } from 'vitest';
import { classifyInput, analyzeFiles, analysisRefs, memorySource, type InputFile } from '../src/engine/index.ts';

const A = 'a'.repeat(40), B = 'b'.repeat(40), C = 'c'.repeat(40);
function f(path: string, text: string): InputFile {
  return { path, source: memorySource(new TextEncoder().encode(text)) };
}

describe('classifyInput', () => {
  // A repository after `git pack-refs --all` / `git gc`: refs/ holds no files, logs/HEAD sits next
  // to logs/refs/: the git directory is .git, not .git/logs.
  const packedGitDir = [
    f('.git/HEAD', 'ref: refs/heads/master\n'),
    f('.git/config', '[core]\n\trepositoryformatversion = 0\n'),
    f('.git/packed-refs', `# pack-refs with: peeled fully-peeled sorted \n${A} refs/heads/master\n${B} refs/heads/topic\n${C} refs/tags/v1\n`),
    f('.git/logs/HEAD', `${'0'.repeat(40)} ${A} A U Thor <a@b> 1700000000 +0000\tcommit (initial): one\n`),
    f('.git/logs/refs/heads/master', `${'0'.repeat(40)} ${A} A U Thor <a@b> 1700000000 +0000\tcommit (initial): one\n`),
  ];
  it('a fully packed .git with reflogs is the files backend at .git/', () => {
    const c = classifyInput(packedGitDir);
    expect(c.kind).toBe('files');
    expect(c.root).toBe('.git/');
    // for-each-ref --include-root-refs: HEAD resolves to master's id, then the packed refs.
    expect(analysisRefs(analyzeFiles(packedGitDir))).toEqual([
      { name: 'HEAD', oid: A }, { name: 'refs/heads/master', oid: A }, { name: 'refs/heads/topic', oid: B }, { name: 'refs/tags/v1', oid: C },
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
    const files = [f('.git/HEAD', 'ref: refs/heads/.invalid\n'), f('.git/refs/heads', ''), f('.git/config', '[extensions]\n\trefStorage = reftable\n'), f('.git/reftable/tables.list', '')];
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
