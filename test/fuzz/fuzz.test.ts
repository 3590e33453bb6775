/**
 * Fuzzing the engine with fast-check: byte mutations of the real fixtures (bit flips, byte sets,
 * truncations, deletions, insertions, splices from other tables, edits of block_len / restart
 * count / restart offsets / footer positions / header fields, runaway varints at record starts),
 * about half of them with the footer CRC recomputed (and the header copied into the footer) so
 * that the checks past the footer are reached; tables written by the engine's writer from
 * generated refs, then mutated; random bytes; generated tables.list files.
 *
 * Normal run (`npm test`, CI): ≥ 2,000 cases from a fixed seed, so a run is reproducible and a
 * submission does not pass or fail by luck. `npm run fuzz` (FUZZ_RUNS=100000): 100,000 cases from
 * a fresh random seed each time (that is where new crashers are found; they go to the corpus).
 * A failing case prints fast-check's `{ seed, path }` and the shrunk mutation list: replay it with
 * FUZZ_SEED=<seed> FUZZ_PATH=<path>. FUZZ_STATS=1 prints which checks the rejections came from.
 * Minimized crashers are kept in test/fuzz/corpus/ and replayed by corpus.test.ts.
 */
import { describe, it, expect, afterAll } from 'vitest';
import fc from 'fast-check';
import { writeTable } from '../../src/engine/reftable/writer.ts';
import { textToKey } from '../../src/engine/index.ts';
import {
  loadSeeds,
  seedOf,
  mutate,
  mutationArb,
  checkTable,
  checkStack,
  timed,
  stats,
  CASE_LIMIT_MS,
  type Seed,
} from './harness.ts';

// The long run (`npm run fuzz`) is families.test.ts's worker pool; these stay a fixed-seed slice.
const TOTAL = 2400;
const runs = (share: number) => Math.max(1, Math.round(TOTAL * share));
const BIG = TOTAL > 20_000;
/** The seed of the normal run (a date); FUZZ_SEED overrides it, `npm run fuzz` draws its own. */
const FIXED_SEED = 20261130;
const TIMEOUT = BIG ? 6 * 3600_000 : 120_000;

const { seeds: allSeeds, stacks } = loadSeeds();
// The 1.7 MB base table of tombstones-50k costs ~50 ms a parse: only in the long run.
const seeds = allSeeds.filter((s) => BIG || s.bytes.length < 1_000_000);
// Weight small tables up: most of the code paths are in every table, small ones run fast.
const weighted: Seed[] = seeds
  .flatMap((s) => (s.bytes.length < 20_000 ? [s, s, s] : s.bytes.length < 400_000 ? [s] : []))
  .concat(seeds.filter((s) => s.bytes.length >= 400_000));
const smallStacks = stacks.filter((s) => [...s.tables.values()].reduce((n, b) => n + b.length, 0) < 400_000);

afterAll(() => {
  // One line for the record: how much ran, how long the slowest case took.
  console.log(
    `fuzz: ${stats.cases} cases, ${stats.slow} over ${CASE_LIMIT_MS} ms, slowest ${stats.maxMs.toFixed(1)} ms (${stats.slowest.slice(0, 120)}), ${stats.accepted} accepted, ${stats.rejected} rejected`,
  );
  // FUZZ_STATS=1: which checks the rejections came from (numbers and names folded).
  if (process.env.FUZZ_STATS)
    console.log(
      [...stats.messages]
        .sort((a, b) => b[1] - a[1])
        .map(([m, n]) => `${String(n).padStart(7)} ${m}`)
        .join('\n'),
    );
});

const params = (numRuns: number) => ({
  numRuns,
  endOnFailure: !BIG,
  ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : BIG ? {} : { seed: FIXED_SEED }),
  ...(process.env.FUZZ_PATH ? { path: process.env.FUZZ_PATH } : {}),
});

describe('fuzz: mutated fixture tables', () => {
  it(
    `openTable + lookups (${runs(0.55)} cases)`,
    () => {
      fc.assert(
        fc.property(
          fc.nat(weighted.length - 1),
          fc.array(mutationArb, { minLength: 1, maxLength: 4 }),
          fc.boolean(),
          fc.boolean(),
          fc.integer({ min: 0, max: 9 }),
          (si, muts, fixCrc, copyHeader, r) => {
            const seed = weighted[si];
            const bytes = mutate(seed, muts, seeds, fixCrc, copyHeader);
            const out = timed(
              () => `${seed.fx}/${seed.name} ${JSON.stringify(muts)} crc=${fixCrc}`,
              () => checkTable(seed.name, bytes, { names: seed.refNames, oids: seed.oids }, r < 3),
            );
            if (out.ok) stats.accepted++;
            else stats.rejected++;
          },
        ),
        params(runs(0.55)),
      );
    },
    TIMEOUT,
  );

  it(
    `a mutated table inside its stack: analyzeFiles → buildReport → analysisRefs (${runs(0.2)} cases)`,
    () => {
      fc.assert(
        fc.property(
          fc.nat(smallStacks.length - 1),
          fc.nat(),
          fc.array(mutationArb, { minLength: 1, maxLength: 3 }),
          fc.boolean(),
          (sti, ti, muts, fixCrc) => {
            const st = smallStacks[sti];
            const name = st.names[ti % st.names.length];
            const seed = seeds.find((s) => s.fx === st.fx && s.name === name)!;
            const bytes = mutate(seed, muts, seeds, fixCrc, fixCrc);
            timed(
              () => `${st.fx}/${name} ${JSON.stringify(muts)} crc=${fixCrc}`,
              () => checkStack(st, { name, bytes }, null),
            );
          },
        ),
        params(runs(0.2)),
      );
    },
    TIMEOUT,
  );
});

// Generated refs written by the engine's writer (many shapes: block sizes, restart intervals,
// SHA-256, unaligned, logs), opened as written, then mutated.
const nameArb = fc.oneof(
  fc.constantFrom(
    'HEAD',
    'refs/heads/main',
    'refs/tags/v1',
    'refs/heads/<img src=x onerror=alert(1)>',
    'refs/heads/\u202eevil',
  ),
  fc.string({ minLength: 1, maxLength: 40 }).map((s) => 'refs/heads/' + s),
  fc.stringMatching(/^refs\/(heads|tags|remotes\/o)\/[a-z0-9/_-]{1,30}$/),
);
const tableArb = fc.record({
  names: fc.uniqueArray(nameArb.map(textToKey), { minLength: 0, maxLength: 160 }),
  kinds: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 160, maxLength: 160 }),
  s256: fc.boolean(),
  blockSize: fc.constantFrom(0, 256, 512, 1024, 4096),
  restartInterval: fc.integer({ min: 1, max: 20 }),
  logNames: fc.integer({ min: 0, max: 60 }),
  logsPerName: fc.integer({ min: 1, max: 3 }),
  /** A log-only table (git writes one for a reflog expiry): first block a log block, log_position 0. */
  logOnly: fc.boolean(),
  seed: fc.nat(),
});
type Generated = typeof tableArb extends fc.Arbitrary<infer T> ? T : never;
function writeGenerated(g: Generated): Uint8Array | null {
  const hs = g.s256 ? 32 : 20;
  const names = [...g.names].sort();
  const oid = (i: number) => Uint8Array.from({ length: hs }, (_, k) => (i * 31 + k * 7 + g.seed) & 255);
  const refs = names.map((name, i) => {
    const type = g.kinds[i] as 0 | 1 | 2 | 3;
    return {
      name,
      updateIndex: 1 + (i % 3),
      type,
      value: type === 1 || type === 2 ? oid(i) : undefined,
      peeled: type === 2 ? oid(i + 1000) : undefined,
      target: type === 3 ? 'refs/heads/main' : undefined,
    };
  });
  // Log keys sort by name, then update index descending (the key holds the reversed index).
  const logs = names.slice(0, g.logNames).flatMap((name, i) =>
    [3, 2, 1].slice(0, g.logsPerName).map((u) => ({
      name,
      updateIndex: u,
      type: (i % 5 ? 1 : 0) as 0 | 1,
      oldId: oid(i),
      newId: oid(i + 1),
      committerName: 'A U Thor',
      email: 'a@example.com',
      time: 1_700_000_000 + i,
      tzOffset: 60,
      message: 'msg ' + i,
    })),
  );
  try {
    return writeTable(g.logOnly ? [] : refs, logs, {
      hashId: g.s256 ? 's256' : 'sha1',
      blockSize: g.blockSize,
      restartInterval: g.restartInterval,
      minUpdateIndex: 1,
      maxUpdateIndex: 3,
    });
  } catch {
    return null; // the writer refused (e.g. a record larger than a block): not what is tested here
  }
}

describe('fuzz: generated tables', () => {
  it(
    `written tables open; mutated ones are accepted or rejected cleanly (${runs(0.1)} cases)`,
    () => {
      fc.assert(
        fc.property(
          tableArb,
          fc.array(mutationArb, { minLength: 0, maxLength: 3 }),
          fc.boolean(),
          (g, muts, fixCrc) => {
            const bytes = writeGenerated(g);
            if (!bytes) return;
            timed(
              () => `generated ${JSON.stringify(g)} ${JSON.stringify(muts)}`,
              () => {
                // As written: accepted (seedOf opens it), and lookups find every name.
                const seed = seedOf('generated', 'g.ref', bytes);
                const out = checkTable(
                  'g.ref',
                  muts.length ? mutate(seed, muts, seeds, fixCrc, fixCrc) : bytes,
                  { names: g.names.slice(0, 8), oids: seed.oids },
                  false,
                );
                if (!muts.length) expect(out).toMatchObject({ ok: true });
              },
            );
          },
        ),
        params(runs(0.1)),
      );
    },
    TIMEOUT,
  );
});

describe('fuzz: random input', () => {
  it(
    `random bytes, random headers with a valid footer CRC (${runs(0.08)} cases)`,
    () => {
      const head = fc.constantFrom([0x52, 0x45, 0x46, 0x54, 1], [0x52, 0x45, 0x46, 0x54, 2], [0x52, 0x45, 0x46, 0x54]);
      fc.assert(
        fc.property(head, fc.uint8Array({ maxLength: 600 }), fc.boolean(), (h, body, fixCrc) => {
          const seed: Seed = {
            fx: 'random',
            name: 'r.ref',
            bytes: Uint8Array.from([...h, ...body]),
            fields: [],
            records: [],
            values: [],
            blocks: [],
            refNames: [],
            oids: [],
            footerSize: 68,
            headerSize: 24,
          };
          const bytes = mutate(seed, [], seeds, fixCrc, fixCrc);
          timed(
            () => `random ${Buffer.from(bytes).toString('base64')}`,
            () => checkTable('r.ref', bytes, { names: ['refs/heads/a'], oids: [] }, true),
          );
        }),
        params(runs(0.08)),
      );
    },
    TIMEOUT,
  );

  it(
    `generated tables.list files (${runs(0.07)} cases)`,
    () => {
      const st = stacks.find((s) => s.fx === 'nocompact-s2')!;
      const line = fc.oneof(
        fc.constantFrom(...st.names, '..', '.', '', 'a/b.ref', '..\\x.ref', 'x.ref\r', '\u0000', ' '),
        fc.string({ maxLength: 20 }),
      );
      fc.assert(
        fc.property(fc.array(line, { maxLength: 30 }), fc.boolean(), (lines, nl) => {
          const text = lines.join('\n') + (nl ? '\n' : '');
          timed(
            () => `tables.list ${JSON.stringify(text)}`,
            () => checkStack(st, null, new TextEncoder().encode(text)),
          );
        }),
        params(runs(0.07)),
      );
    },
    TIMEOUT,
  );
});
