/**
 * `npm run bench`: refscope at forge scale (issue #10). A benchmark, not a test: it never fails on
 * timings; it prints a table of medians against the targets and writes it to bench/results.md.
 *
 *   npm run bench [-- --rebuild] [--quick] [--no-browser] [--no-jgit] [--no-git] [--10m]
 *
 * 1. Builds the large stacks with refscope's own writer into bench/out/ (bench/gen.ts): a
 *    1,000,000-ref table in git's layout, the same refs as a 10-table stack, and the table plus a
 *    50,000-tombstone table. Checks the writer against git once (a git-written fixture rebuilt byte
 *    for byte) and the big table's block shape against a git-written table's `dump-reftable -b`.
 * 2. Times every target of the issue (medians of several runs, the first run of a fresh process
 *    where that matters), with JGit's `debug-benchmark-reftable --test SCAN` run side by side.
 * 3. Prints the table and writes bench/results.md with the machine and the date.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { collectInput } from '../src/cli/node-input.ts';
import {
  openTable,
  mergeTables,
  listRefsBytes,
  loadStack,
  analyzeFiles,
  buildReport,
  seekRef,
  newCounters,
  memorySource,
  type Table,
  type InputFile,
} from '../src/engine/index.ts';
import { writeTable, type RefRecordIn } from '../src/engine/reftable/writer.ts';
import { simulate, MODEL_NAMES } from '../src/engine/simulate/index.ts';
import { buildStacks, N_REFS, N_TOMBSTONES } from './gen.ts';
import { browserBench, type BrowserResult } from './browser.ts';
import { cliVsGit } from './cli-vs-git.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'bench/out');
const args = new Set(process.argv.slice(2));
const QUICK = args.has('--quick');
const RUNS = QUICK ? 3 : 7;

const lines: string[] = [];
function log(s = ''): void {
  console.log(s);
  lines.push(s);
}
const median = (xs: number[]): number => {
  const a = [...xs].sort((x, y) => x - y);
  const m = a.length >> 1;
  return a.length % 2 ? a[m] : (a[m - 1] + a[m]) / 2;
};
const ms = (x: number): string => (x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${x.toFixed(x < 10 ? 1 : 0)} ms`);
const mb = (b: number): string => (b < 1e6 ? `${(b / 1e3).toFixed(0)} KB` : `${(b / 1e6).toFixed(1)} MB`);
const int = (n: number): string => n.toLocaleString('en-US');
/**
 * Time `fn` `n` times after `warm` untimed runs (JIT warm-up). No GC is forced between runs: a
 * forced full GC makes V8 shrink its heap and external-memory limits, and the next run, which
 * allocates ~150 MB of typed arrays, then pays for growing them again (about 1.6× slower here).
 */
function timeRuns<T>(n: number, fn: () => T, warm = 0): { times: number[]; last: T } {
  const times: number[] = [];
  let last!: T;
  for (let i = 0; i < warm + n; i++) {
    const t = performance.now();
    last = fn();
    if (i >= warm) times.push(performance.now() - t);
  }
  return { times, last };
}
/** Like `timeRuns` for several functions, run in turns (load changes on a shared machine hit all alike). */
function timeTurns(n: number, fns: (() => unknown)[], warm = 0): number[][] {
  const times = fns.map(() => [] as number[]);
  for (let i = 0; i < warm + n; i++) {
    fns.forEach((fn, k) => {
      const t = performance.now();
      fn();
      if (i >= warm) times[k].push(performance.now() - t);
    });
  }
  return times;
}
const WARM = QUICK ? 1 : 3;

// ------------------------------------------------------------------------------------------------
// Machine
function cmdOut(cmd: string, a: string[]): string {
  try {
    const r = spawnSync(cmd, a, { encoding: 'utf8' });
    return ((r.stdout || '') + (r.stderr || '')).trim().split('\n')[0] ?? '';
  } catch {
    return '';
  }
}
const cpus = os.cpus();
const load0 = os.loadavg();
const machine = {
  cpu: cpus[0]?.model ?? 'unknown',
  cores: cpus.length,
  memory: `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
  node: process.version,
  os: `${os.type()} ${os.release()}`,
  git: cmdOut('git', ['--version']),
  java: cmdOut('java', ['-version']),
};
const date = new Date().toISOString().replace('T', ' ').replace(/\..*/, ' UTC');
log(`refscope benchmark — ${date}`);
log(`machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memory}, Node ${machine.node}, ${machine.os}`);
log(`load average before: ${load0.map((x) => x.toFixed(2)).join(' ')}`);
log();

// ------------------------------------------------------------------------------------------------
// 1. The stacks
log('1. Stacks (refscope writer, git layout: 4 KiB blocks, restart interval 16, obj index; SHA-1)');
const built = buildStacks(OUT, args.has('--rebuild'));
const sizeOf = (dir: string) =>
  fs
    .readFileSync(path.join(dir, 'tables.list'), 'utf8')
    .trim()
    .split('\n')
    .map((n) => fs.statSync(path.join(dir, n)).size);
const sizesA = sizeOf(built.single),
  sizesB = sizeOf(built.stack10),
  sizesC = sizeOf(built.tomb50k);
const sum = (a: number[]) => a.reduce((x, y) => x + y, 0);
log(
  `   ${built.rebuilt ? `built in ${ms(built.buildMs)}` : `reused from bench/out (built in ${ms(built.buildMs)}; --rebuild to build again)`}`,
);
log(`   (a) single table: ${int(N_REFS)} refs, ${mb(sizesA[0])} (${(sizesA[0] / 2 ** 20).toFixed(1)} MiB)`);
log(`   (b) 10-table stack: ${sizesB.map((s) => mb(s)).join(', ')} = ${mb(sum(sizesB))}`);
log(`   (c) (a) + ${int(N_TOMBSTONES)} tombstones: ${sizesC.map((s) => mb(s)).join(' + ')}`);

// Writer = git's writer: rebuild a git-written table from its own records, byte for byte.
const FX = path.join(ROOT, 'test/fixtures/reftable/tombstones-50k');
const gitName = fs.readFileSync(path.join(FX, 'reftable/tables.list'), 'utf8').split('\n')[0];
const gitBytes = new Uint8Array(fs.readFileSync(path.join(FX, 'reftable', gitName)));
const gitTable = openTable({ path: gitName, source: memorySource(gitBytes) });
const recs: RefRecordIn[] = [];
for (let i = 0; i < gitTable.refs.count; i++) {
  const r = gitTable.refs,
    hs = gitTable.header.hashSize;
  const type = r.types[i] as 0 | 1 | 2 | 3;
  recs.push({
    name: r.name(i),
    type,
    updateIndex: r.updateIndex[i],
    value: type === 1 || type === 2 ? r.oids.slice(i * hs, (i + 1) * hs) : undefined,
    peeled: type === 2 ? r.peeled.get(i) : undefined,
    target: type === 3 ? r.targets.get(i) : undefined,
  });
}
const rebuilt = writeTable(recs, [], {
  minUpdateIndex: gitTable.header.minUpdateIndex,
  maxUpdateIndex: gitTable.header.maxUpdateIndex,
});
const identical = rebuilt.length === gitBytes.length && rebuilt.every((b, i) => b === gitBytes[i]);
log(
  `   writer = git's writer: tombstones-50k's git-written base table (${int(gitBytes.length)} bytes) rebuilt from its records is ${identical ? 'byte-identical' : 'DIFFERENT'} (test/writer.test.ts checks this on every git-written fixture)`,
);

// Shape of (a) against git's dump-reftable -b of that git-written table.
interface ShapeBlock {
  section: string;
  length: number;
  restarts: number;
}
function gitShape(file: string): ShapeBlock[] {
  const out: ShapeBlock[] = [];
  let label = '',
    prevLeaf = '';
  let cur: Partial<ShapeBlock> | null = null;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const m = /^(ref|idx|obj|log):$/.exec(line);
    if (m) {
      label =
        m[1] === 'idx'
          ? ({ ref: 'refIndex', obj: 'objIndex', log: 'logIndex' } as Record<string, string>)[prevLeaf]
          : m[1];
      if (m[1] !== 'idx') prevLeaf = m[1];
      continue;
    }
    const l = /^\s+- length: (\d+)/.exec(line);
    if (l) {
      cur = { section: label, length: +l[1] };
      continue;
    }
    const r = /^\s+restarts: (\d+)/.exec(line);
    if (r && cur) {
      out.push({ ...cur, restarts: +r[1] } as ShapeBlock);
      cur = null;
    }
  }
  return out;
}
function shape(blocks: ShapeBlock[]) {
  const seq = blocks.map((b) => b.section).filter((s, i, a) => i === 0 || a[i - 1] !== s);
  const ref = blocks.filter((b) => b.section === 'ref');
  const full = ref.slice(1, -1); // not the first (shares bytes with the header) nor the last
  const lens = full.map((b) => b.length + 2 + 3 * b.restarts); // block_len
  return {
    seq: seq.join(' → '),
    refBlocks: ref.length,
    first: ref[0] ? `${ref[0].length}/${ref[0].restarts}` : '',
    fillMean: lens.reduce((x, y) => x + y, 0) / Math.max(1, lens.length) / 4096,
    fillMin: Math.min(...lens) / 4096,
    restarts: `${Math.min(...full.map((b) => b.restarts))}–${Math.max(...full.map((b) => b.restarts))}`,
    count: (s: string) => blocks.filter((b) => b.section === s).length,
  };
}
const gShape = shape(gitShape(path.join(FX, 'truth/blocks', `${gitName}.txt`)));
const aShape = shape(
  built.singleLayout.map((b) => ({ section: b.section, length: b.restartTableOffset, restarts: b.restarts })),
);
const shapeOk =
  gShape.seq === aShape.seq && Math.abs(gShape.fillMean - aShape.fillMean) < 0.015 && aShape.fillMin > 0.97;
log(`   block shape, git's dump-reftable -b of that table vs (a):`);
log(`     sections      ${gShape.seq}  |  ${aShape.seq}`);
log(
  `     ref blocks    ${int(gShape.refBlocks)} for 50,000 refs (${(50000 / gShape.refBlocks).toFixed(0)}/block)  |  ${int(aShape.refBlocks)} for ${int(N_REFS)} refs (${(N_REFS / aShape.refBlocks).toFixed(0)}/block)`,
);
log(`     first block   length/restarts ${gShape.first} (counted from file byte 0)  |  ${aShape.first}`);
log(
  `     ref block fill (block_len/4096, mean, min)  ${(100 * gShape.fillMean).toFixed(1)} %, ${(100 * gShape.fillMin).toFixed(1)} %  |  ${(100 * aShape.fillMean).toFixed(1)} %, ${(100 * aShape.fillMin).toFixed(1)} %`,
);
log(`     restarts per full ref block ${gShape.restarts}  |  ${aShape.restarts} (one per 16 records)`);
log(
  `     index / obj blocks  ${gShape.count('refIndex')} ref idx, ${gShape.count('obj')} obj, ${gShape.count('objIndex')} obj idx  |  ${aShape.count('refIndex')} ref idx (2 levels), ${aShape.count('obj')} obj, ${aShape.count('objIndex')} obj idx`,
);
log(`     → ${shapeOk ? 'plausible: same sections, blocks filled alike' : 'NOT plausible: check the generator'}`);
log();

// ------------------------------------------------------------------------------------------------
// 2. Targets
interface Row {
  target: string;
  goal: string;
  measured: string;
  reference: string;
  ratio: string;
  verdict: string;
}
const rows: Row[] = [];
const verdict = (ok: boolean | null) => (ok === null ? 'n/a' : ok ? 'met' : 'MISSED');

log('2. Targets');
const tableA = built.singleTable;
const inputA = collectInput(tableA)[0];
const bytesA = inputA.source.size;

// 2.1 Full read + merged view (Node), warm medians.
// The progress calls tell where the time goes: openTable reports the end of each section.
const splits: { refEnd: number; objEnd: number; open: number; merge: number }[] = [];
const readA = timeRuns(
  RUNS,
  () => {
    const marks = new Map<number, number>();
    const t0 = performance.now();
    const t = openTable(inputA, {
      onProgress: (b) => {
        if (!marks.has(b)) marks.set(b, performance.now() - t0);
      },
    });
    const t1 = performance.now();
    const m = mergeTables([t]);
    const t2 = performance.now();
    splits.push({
      refEnd: marks.get(t.footer.refIndexPosition) ?? NaN,
      objEnd: marks.get(t.footer.objIndexPosition) ?? NaN,
      open: t1 - t0,
      merge: t2 - t1,
    });
    return { t, m };
  },
  WARM,
);
const fullA = median(readA.times);
const sp = splits.slice(WARM);
const refPart = median(sp.map((x) => x.refEnd));
const objPart = median(sp.map((x) => x.objEnd - x.refEnd));
log(
  `   full read of (a) + merged view (openTable + mergeTables), ${RUNS} runs after ${WARM} warm-up: ${readA.times.map((t) => t.toFixed(0)).join(', ')} ms → median ${ms(fullA)}`,
);
log(
  `     where it goes (medians): the whole-file read and the ${int(aShape.refBlocks)} ref blocks ${ms(refPart)} (the part JGit's SCAN does); ref index and the ${int(aShape.count('obj'))} obj blocks (1,000,000 obj records, each position checked) ${ms(objPart)}; the rest of openTable (obj index, index checks) ${ms(median(sp.map((x) => x.open - x.objEnd)))}; mergeTables ${ms(median(sp.map((x) => x.merge)))}`,
);
const listTimes = timeRuns(RUNS, () => listRefsBytes([readA.last.t], readA.last.m), WARM);
const listBytes = listTimes.last;
let listLines = 0;
for (let i = 0; i < listBytes.length; i++) if (listBytes[i] === 10) listLines++;
const fullListA = fullA + median(listTimes.times);
log(
  `   + refname output (listRefsBytes: "<oid> <name>\\n", ${mb(listBytes.length)}, ${int(listLines)} lines): median ${ms(median(listTimes.times))} → ${ms(fullListA)} in all`,
);
// Cold: a fresh process, first run (no JIT-compiled code yet), as a command-line run is.
const cold: { open: number; merge: number; list: number }[] = [];
for (let i = 0; i < (QUICK ? 2 : 7); i++) {
  const r = spawnSync(
    process.execPath,
    [path.join(ROOT, 'bin/run-ts.mjs'), path.join(ROOT, 'bench/child.ts'), 'cold', tableA],
    { cwd: ROOT, encoding: 'utf8' },
  );
  if (r.status === 0) cold.push(JSON.parse(r.stdout.trim().split('\n').pop()!));
}
const coldRead = median(cold.map((c) => c.open + c.merge));
const coldList = median(cold.map((c) => c.open + c.merge + c.list));
log(
  `   cold (fresh process, first run; Node start-up and module loading not included), ${cold.length} processes: read + merged view median ${ms(coldRead)}, with refname output ${ms(coldList)}`,
);

// The whole command-line process, as git's figure is: `refscope refs` (Node start-up, loading the
// bundle dist/cli/refscope.mjs, the read, the merged view, the listing written to /dev/null).
const cliWall: number[] = [];
{
  const devnull = fs.openSync('/dev/null', 'w');
  for (let i = 0; i < (QUICK ? 2 : 3); i++) {
    const t = performance.now();
    const r = spawnSync(process.execPath, [path.join(ROOT, 'bin/refscope.mjs'), 'refs', built.single], {
      cwd: ROOT,
      stdio: ['ignore', devnull, 'pipe'],
    });
    if (r.status === 0) cliWall.push(performance.now() - t);
  }
  fs.closeSync(devnull);
}
const cliMed = cliWall.length ? median(cliWall) : NaN;
log(
  `   the whole CLI process, refscope refs (a) > /dev/null (Node start-up and loading the bundle included), ${cliWall.length} runs: ${cliWall.map((t) => t.toFixed(0)).join(', ')} ms → median ${ms(cliMed)}`,
);

// JGit side by side.
const JARS = [
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
].map((j) => path.join('/usr/share/java', j));
let jgit: { warm: number; cold: number; raw: string[] } | { skipped: string };
if (args.has('--no-jgit')) jgit = { skipped: '--no-jgit' };
else if (spawnSync('java', ['-version']).status !== 0) jgit = { skipped: 'java is not runnable' };
else if (JARS.some((j) => !fs.existsSync(j)))
  jgit = {
    skipped: `JGit jars missing: ${JARS.filter((j) => !fs.existsSync(j))
      .map((j) => path.basename(j))
      .join(', ')}`,
  };
else {
  const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'refscope-bench-jgit-'));
  execFileSync('git', ['init', '-q', repo]);
  // SCAN first times reading an ls-remote file ("packed-refs"), then the reftable: a one-line
  // file keeps the first part out of the way.
  const ls = path.join(repo, 'ls-remote.txt');
  fs.writeFileSync(ls, `${'0'.repeat(40)} refs/heads/main\n`);
  const scan = (tries: number) => {
    const r = spawnSync(
      'java',
      [
        '-cp',
        JARS.join(':'),
        'org.eclipse.jgit.pgm.Main',
        'debug-benchmark-reftable',
        '--test',
        'SCAN',
        '--tries',
        String(tries),
        ls,
        tableA,
      ],
      { cwd: repo, encoding: 'utf8' },
    );
    const out = (r.stdout ?? '') + (r.stderr ?? '');
    const m = /reftable\s+(\d+) ms/.exec(out);
    if (r.status !== 0 || !m) throw new Error(`jgit SCAN failed (${r.status}): ${out.slice(0, 300)}`);
    return {
      perRun: +m[1] / tries,
      line: out
        .trim()
        .split('\n')
        .find((l) => /reftable/.test(l))!
        .trim(),
    };
  };
  try {
    const warmRuns = [scan(10), scan(10), scan(10)];
    const coldRuns = Array.from({ length: QUICK ? 2 : 5 }, () => scan(1));
    jgit = {
      warm: median(warmRuns.map((r) => r.perRun)),
      cold: median(coldRuns.map((r) => r.perRun)),
      raw: [...warmRuns, ...coldRuns].map((r) => r.line),
    };
  } catch (e) {
    jgit = { skipped: (e as Error).message };
  }
  fs.rmSync(repo, { recursive: true, force: true });
}
const GIT_WALL = 500,
  GIT_USER = 420;
if ('skipped' in jgit) log(`   JGit SCAN: skipped (${jgit.skipped})`);
else
  log(
    `   JGit 4.11 debug-benchmark-reftable --test SCAN on the same file: ${ms(jgit.warm)}/run (--tries 10: average of its 10 runs in one JVM, median of 3 JVMs), cold ${ms(jgit.cold)} (--tries 1, median of ${QUICK ? 2 : 5} JVMs)`,
  );
log(
  `   git: no reftable-capable git here (${machine.git || 'git missing'}; reftable arrived in 2.45): the issue's figure for git 2.56 for-each-ref --format='%(refname)' on such a stack is used, 0.50 s wall (0.42 s user)`,
);
const jg = 'skipped' in jgit ? null : jgit;
rows.push({
  target: 'Full read of (a) + merged view, Node (openTable + mergeTables), warm',
  goal: '< git 2.56 for-each-ref (0.50 s) and < JGit SCAN',
  measured: `${ms(fullA)} (median of ${RUNS})`,
  reference: `git 2.56: 500 ms wall; JGit SCAN: ${jg ? `${ms(jg.warm)}/run` : 'skipped'}`,
  ratio: `git/refscope ${(GIT_WALL / fullA).toFixed(2)}×; JGit/refscope ${jg ? (jg.warm / fullA).toFixed(2) + '×' : 'n/a'}`,
  verdict: verdict(fullA < GIT_WALL && (!jg || fullA < jg.warm)),
});
rows.push({
  target: '  same, cold (fresh process, first run)',
  goal: '< git (0.50 s) and < JGit cold',
  measured: `${ms(coldRead)} (median of ${cold.length})`,
  reference: `git 2.56: 500 ms wall (incl. process start); JGit --tries 1: ${jg ? ms(jg.cold) : 'skipped'}`,
  ratio: `git/refscope ${(GIT_WALL / coldRead).toFixed(2)}×; JGit/refscope ${jg ? (jg.cold / coldRead).toFixed(2) + '×' : 'n/a'}`,
  verdict: verdict(coldRead < GIT_WALL && (!jg || coldRead < jg.cold)),
});
rows.push({
  target: '  + refname output (listRefsBytes), warm / cold',
  goal: '< git 2.56 for-each-ref (0.50 s wall)',
  measured: `${ms(fullListA)} / ${ms(coldList)}`,
  reference: 'git 2.56: 500 ms wall, 420 ms user',
  ratio: `git/refscope ${(GIT_WALL / fullListA).toFixed(2)}× / ${(GIT_WALL / coldList).toFixed(2)}×`,
  verdict: verdict(fullListA < GIT_WALL && coldList < GIT_WALL),
});
rows.push({
  target: '  the whole CLI process: refscope refs (a) > /dev/null',
  goal: 'for reference (git: one process too)',
  measured: `${ms(cliMed)} wall (median of ${cliWall.length})`,
  reference: 'git 2.56: 500 ms wall',
  ratio: `git/refscope ${(GIT_WALL / cliMed).toFixed(2)}×`,
  verdict: 'info',
});
void GIT_USER;

// 2.2 Memory: the worker's session, in a fresh Node process.
log();
const memRuns: {
  retained: number;
  heap: number;
  arrayBuffers: number;
  peakRssGrowth: number;
  inputBytes: number;
  ms: number;
  maxProgressGap: number;
}[] = [];
for (let i = 0; i < 2; i++) {
  const r = spawnSync(
    process.execPath,
    [path.join(ROOT, 'bin/run-ts.mjs'), path.join(ROOT, 'bench/child.ts'), 'mem', built.single],
    { cwd: ROOT, encoding: 'utf8' },
  );
  if (r.status === 0) memRuns.push(JSON.parse(r.stdout.trim().split('\n').pop()!));
  else log(`   memory child failed: ${r.stderr.slice(0, 300)}`);
}
const mem = memRuns.sort((a, b) => a.retained - b.retained)[0];
if (mem) {
  log(
    `   worker memory (Node, EngineSession.load of (a) as the worker runs it, sources that keep nothing): heap +${mb(mem.heap)}, ArrayBuffers +${mb(mem.arrayBuffers)} = ${mb(mem.retained)} held = ${(mem.retained / mem.inputBytes).toFixed(2)}× the ${mb(mem.inputBytes)} input; RSS growth at its highest (sampled at the progress calls) ${mb(mem.peakRssGrowth)} (${(mem.peakRssGrowth / mem.inputBytes).toFixed(2)}×: the whole-file read, growing columns and garbage not yet collected); load ${ms(mem.ms)}, longest gap between progress calls ${ms(mem.maxProgressGap)}`,
  );
  rows.push({
    target: 'Worker memory holding the analysis of (a), Node (session)',
    goal: '< 3× input bytes',
    measured: `${mb(mem.retained)} (heap ${mb(mem.heap)} + buffers ${mb(mem.arrayBuffers)})`,
    reference: `input ${mb(mem.inputBytes)}`,
    ratio: `${(mem.retained / mem.inputBytes).toFixed(2)}× (RSS peak +${(mem.peakRssGrowth / mem.inputBytes).toFixed(2)}×)`,
    verdict: verdict(mem.retained < 3 * mem.inputBytes),
  });
}

// 2.3 Lookups through the index.
log();
const tA = readA.last.t;
const names: string[] = [];
{
  let x = 0x9e3779b9;
  for (let i = 0; i < 100_000; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    const name = tA.refs.name(x % tA.refs.count);
    names.push(i % 2 ? name : name + (i % 4 ? '0' : '\x00')); // half missing (just after an existing name)
  }
}
const lookupRun = (t: Table) => () => {
  const c = newCounters();
  let hits = 0;
  for (const n of names) if (seekRef(t, n, c).exact) hits++;
  return { hits, c };
};
const tMem = openTable({ path: inputA.path, source: memorySource(new Uint8Array(fs.readFileSync(tableA))) });
// No warm-up: the first run also builds the per-block caches (restart ordinals) and warms the JIT.
const lkFile = timeRuns(QUICK ? 3 : 5, lookupRun(tA));
const lkMem = timeRuns(QUICK ? 3 : 5, lookupRun(tMem));
const usFile = (median(lkFile.times) * 1000) / names.length,
  usMem = (median(lkMem.times) * 1000) / names.length;
const lc = lkFile.last.c;
log(
  `   seekRef: 100,000 random names (50,000 existing, 50,000 missing) on (a): ${lkFile.last.hits} found; per lookup ${(lc.indexBlocks / lc.seeks).toFixed(1)} index blocks, ${(lc.leafBlocks / lc.seeks).toFixed(1)} leaf, ${(lc.restartProbes / lc.seeks).toFixed(1)} restart probes, ${(lc.recordsDecoded / lc.seeks).toFixed(1)} records decoded`,
);
log(
  `     file source (a read per block not among the last 64): ${lkFile.times.map((t) => t.toFixed(0)).join(', ')} ms → ${usFile.toFixed(2)} µs/lookup; in memory (like git's mmap): ${usMem.toFixed(2)} µs/lookup`,
);
rows.push({
  target: 'Single-ref lookup through the index, 100,000 random seekRef on (a)',
  goal: '< 20 µs per lookup',
  measured: `${usFile.toFixed(1)} µs (file), ${usMem.toFixed(1)} µs (memory); first run ${((lkFile.times[0] * 1000) / names.length).toFixed(1)} µs`,
  reference: '',
  ratio: `${(20 / usFile).toFixed(1)}× under`,
  verdict: verdict(usFile < 20 && (lkFile.times[0] * 1000) / names.length < 20),
});

// 2.4 Simulator: 50,000 updates on (c), all models.
log();
const filesC: InputFile[] = collectInput(built.tomb50k);
const analysisC = analyzeFiles(filesC);
log(`   (c): ${int(analysisC.merged!.live)} live refs, ${int(analysisC.merged!.tombstones)} winning tombstones`);
const simTimes: number[] = [];
let simOps = 0;
let simSummary = '';
for (let i = 0; i < (QUICK ? 2 : 4); i++) {
  const t = performance.now();
  const res = simulate(analysisC, 'recreate');
  simTimes.push(performance.now() - t);
  simOps = res.workload.operations;
  simSummary = res.results
    .map((r) => `${r.model} ${r.seconds === null ? 'n/a' : r.seconds.toFixed(2) + ' s'}`)
    .join(', ');
}
const simWarm = median(simTimes.slice(1));
log(
  `   simulate(analysis, 'recreate') (${int(simOps)} updates, all models, fixes and curve): ${simTimes.map((t) => t.toFixed(0)).join(', ')} ms (the first one cold) → median of the warm runs ${ms(simWarm)}`,
);
log(`     estimates: ${simSummary}`);
const perModel: string[] = [];
for (const m of MODEL_NAMES) {
  const t = performance.now();
  simulate(analysisC, 'recreate', { models: [m], fixes: false, curve: false });
  perModel.push(`${m} ${ms(performance.now() - t)}`);
}
log(`     one model at a time (no fixes, no curve): ${perModel.join(', ')}`);
rows.push({
  target: `Simulate ${int(simOps)} updates (re-create the tombstoned refs) on (c), all models`,
  goal: '< 3 s',
  measured: `${ms(simWarm)} warm, ${ms(simTimes[0])} first`,
  reference: '',
  ratio: `${(3000 / simWarm).toFixed(2)}× / ${(3000 / simTimes[0]).toFixed(2)}×`,
  verdict: verdict(simWarm < 3000 && simTimes[0] < 3000),
});

// 2.5 10-table stack vs single table.
log();
const filesB = collectInput(built.stack10);
const listB = filesB.find((f) => f.path === 'tables.list')!;
const stackB = loadStack(
  listB,
  filesB.filter((f) => f !== listB),
);
const mergedB = mergeTables(stackB.tables);
const recordsB = stackB.tables.reduce((n, t) => n + (t?.refs.count ?? 0), 0);
// (a) and (b) in turns, so that the ratio compares like with like on a shared machine.
const [turnA, turnB, turnMergeB] = timeTurns(
  RUNS,
  [
    () => mergeTables([openTable(inputA)]),
    () =>
      mergeTables(
        loadStack(
          listB,
          filesB.filter((f) => f !== listB),
        ).tables,
      ),
    () => mergeTables(stackB.tables),
  ],
  WARM,
);
const fullA2 = median(turnA),
  fullB = median(turnB);
log(
  `   (b) 10 tables, ${int(recordsB)} ref records (${int(recordsB - N_REFS)} older values shadowed), merged view ${int(mergedB.live)} live, ${int(mergedB.count)} entries`,
);
log(
  `     in turns with (a), ${RUNS} runs each after ${WARM} warm-up: (b) ${turnB.map((t) => t.toFixed(0)).join(', ')} ms → median ${ms(fullB)}; (a) ${turnA.map((t) => t.toFixed(0)).join(', ')} ms → median ${ms(fullA2)}; the 10-table merge alone ${ms(median(turnMergeB))}`,
);
rows.push({
  target: '10-table stack (b): loadStack + mergeTables vs (a), in turns',
  goal: '≤ 1.5× the single table',
  measured: ms(fullB),
  reference: `(a) ${ms(fullA2)}`,
  ratio: `${(fullB / fullA2).toFixed(2)}×`,
  verdict: verdict(fullB <= 1.5 * fullA2),
});

// Informational: the CLI's analyze (report) on (a).
const analyzeA = timeRuns(QUICK ? 2 : 3, () => buildReport(analyzeFiles(collectInput(built.single))), 1);
log(`   for reference: analyzeFiles + buildReport of (a) (refscope analyze) median ${ms(median(analyzeA.times))}`);

// 2.6 The CLI as whole processes against a real git on a table git wrote.
log();
if (args.has('--no-git')) log('   CLI against git: skipped (--no-git)');
else {
  log("   whole processes in turns on git's own 1,000,000-ref table (bench/cli-vs-git.ts):");
  try {
    const g = cliVsGit({ root: ROOT, out: OUT, runs: QUICK ? 3 : 7, log });
    if ('skipped' in g) log(`   CLI against git: skipped (${g.skipped})`);
    else rows.push(...g.rows);
    if (args.has('--10m')) {
      // The forge-scale table (git writes it once, several minutes; bench/out/git-10m).
      const g10 = cliVsGit({ root: ROOT, out: OUT, runs: 3, log, refs: 10_000_000 });
      if ('skipped' in g10) log(`   CLI against git, 10,000,000 refs: skipped (${g10.skipped})`);
      else rows.push(...g10.rows);
    }
  } catch (e) {
    log(`   CLI against git: failed (${(e as Error).message.split('\n')[0]})`);
  }
}

// 2.7 Browser.
log();
let browser: BrowserResult | { skipped: string };
if (args.has('--no-browser')) browser = { skipped: '--no-browser' };
else {
  log('   headless Chromium, production build (vite build) served locally, (a) dropped onto the page:');
  try {
    browser = await browserBench({ root: ROOT, dir: built.single, live: N_REFS, drops: QUICK ? 2 : 3, log });
  } catch (e) {
    browser = { skipped: `failed: ${(e as Error).message.split('\n')[0]}` };
  }
}
if ('skipped' in browser) {
  log(`   browser: skipped (${browser.skipped})`);
  rows.push({
    target: 'Browser: drop (a) → overview',
    goal: '< 2 s',
    measured: 'skipped',
    reference: browser.skipped,
    ratio: '',
    verdict: 'n/a',
  });
} else {
  const b = browser;
  const dropMs = b.drops.map((d) => d.ms);
  const first = dropMs[0];
  const med = median(dropMs);
  const gap = Math.max(...b.drops.map((d) => d.maxGap));
  const longest = Math.max(0, ...b.drops.flatMap((d) => d.longTasks));
  const wb = b.drops[0].workerBytes;
  log(`   ${b.chromium}; app built in ${ms(b.buildMs)}`);
  rows.push({
    target: 'Browser: drop (a) → overview shows live refs = 1,000,000',
    goal: '< 2 s',
    measured: `${ms(med)} median of ${dropMs.length}, first ${ms(first)}`,
    reference: '',
    ratio: `${(2000 / Math.max(med, first)).toFixed(2)}× under`,
    verdict: verdict(med < 2000 && first < 2000),
  });
  rows.push({
    target: '  progress updates while loading',
    goal: 'at least every 200 ms',
    measured: `longest gap ${ms(gap)}`,
    reference: `${b.drops.map((d) => d.updates).join(', ')} updates per drop`,
    ratio: '',
    verdict: verdict(gap <= 200),
  });
  rows.push({
    target: '  main-thread long tasks while loading',
    goal: 'none over 100 ms',
    measured: longest ? `longest ${ms(longest)}` : 'none',
    reference: '',
    ratio: '',
    verdict: verdict(longest <= 100),
  });
  if (wb !== null) {
    log(
      `   worker memory after the load (CDP Runtime.getHeapUsage after HeapProfiler.collectGarbage): JS heap ${mb(b.drops[0].workerHeap!)} + ArrayBuffers ${mb(b.drops[0].workerBuffers!)} = ${mb(wb)}; before the drop (default sample loaded) ${mb(b.baselineWorkerBytes ?? 0)}`,
    );
    rows.push({
      target: 'Worker memory holding the analysis of (a), Chromium',
      goal: '< 3× input bytes',
      measured: `${mb(wb)} (heap ${mb(b.drops[0].workerHeap!)} + buffers ${mb(b.drops[0].workerBuffers!)})`,
      reference: `input ${mb(bytesA)}`,
      ratio: `${(wb / bytesA).toFixed(2)}×`,
      verdict: verdict(wb < 3 * bytesA),
    });
  }
}

// ------------------------------------------------------------------------------------------------
// 3. The table
const load1 = os.loadavg();
log();
log(`load average after: ${load1.map((x) => x.toFixed(2)).join(' ')}`);
const header = ['Target', 'Goal', 'Measured', 'Reference', 'Ratio', 'Verdict'];
const body = rows.map((r) => [r.target, r.goal, r.measured, r.reference, r.ratio, r.verdict]);
const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
const fmtRow = (r: string[]) => r.map((c, i) => c.padEnd(widths[i])).join(' | ');
console.log();
console.log(fmtRow(header));
console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
for (const r of body) console.log(fmtRow(r));

const md: string[] = [];
md.push('# refscope benchmark results', '');
md.push(
  `Produced by \`npm run bench\` (bench/bench.ts) on ${date}. A benchmark, not a test: nothing fails on timings.`,
  '',
);
md.push('## Machine', '');
md.push(`- CPU: ${machine.cpu}, ${machine.cores} cores; memory ${machine.memory}`);
md.push(`- ${machine.os}; Node ${machine.node}; ${machine.java || 'no java'}; ${machine.git}`);
if (!('skipped' in browser)) md.push(`- Chromium: ${browser.chromium} (headless, playwright-core)`);
md.push(
  `- load average before: ${load0.map((x) => x.toFixed(2)).join(' ')}; after: ${load1.map((x) => x.toFixed(2)).join(' ')} (a shared machine: other work ran alongside)`,
  '',
);
md.push('## Results', '');
md.push(`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`);
for (const r of body) md.push(`| ${r.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`);
md.push('', '## Log', '', '```', ...lines, '```', '');
md.push('## Notes', '');
md.push(
  '- Medians of several runs; "warm" runs are in one process after the first, "cold" is the first run of a fresh Node process (module loading and Node start-up excluded; git\'s 0.50 s includes its process).',
);
md.push(
  '- refscope\'s full read is more than a scan: `openTable` decodes and checks every block and record (ref, ref index, obj and obj index: the 1,000,000 obj records are checked to point at ref blocks); JGit\'s SCAN iterates the ref records only. Each refscope read also allocates fresh memory (the 40 MB file and ~80 MB of columns) whose first touch costs page faults, where a warm JVM reuses its heap; "where it goes" in the log splits the time.',
);
md.push(
  "- The rows \"Whole process on git's 1,000,000-ref table\" compare with a real git built by scripts/setup-git.sh, on a table that git wrote (bench/cli-vs-git.ts), all processes run in turns; the other git figure (0.50 s) is the issue's, for git 2.56 on refscope-written stack (a), since Debian's git 2.39.5 has no reftable backend.",
);
md.push(
  "- The stacks are written by refscope's writer, whose output is byte-identical to git's on every git-written fixture (test/writer.test.ts; checked again above on tombstones-50k).",
  '',
);
fs.writeFileSync(path.join(ROOT, 'bench/results.md'), md.join('\n'));
console.log(`\nwrote bench/results.md`);
