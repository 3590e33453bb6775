/**
 * The block decoder for the hex view (src/engine/blockdetail.ts) and the engine session facade
 * (src/engine/session/), on every git- and JGit-written fixture: every byte of every block is
 * accounted for, records agree with the table parser, and damaged bytes give an error, not a throw.
 */
import { describe, it, expect } from 'vitest';
import path from 'node:path';
import {
  analyzeFiles,
  analysisRefs,
  buildReport,
  displayName,
  memorySource,
  toHex,
  type Table,
} from '../src/engine/index.ts';
import { decodeBlockDetail, ROLE } from '../src/engine/blockdetail.ts';
import { EngineSession, slicedSource, type LoadProgress } from '../src/engine/session/index.ts';
import { collectInput } from '../src/cli/node-input.ts';
import { REFTABLE_FIXTURES, fixtureTables, reftableFixtures } from './lib/fixtures.ts';

const FX = REFTABLE_FIXTURES;
const fixtures = reftableFixtures();
const tablesOf = fixtureTables;

describe('decodeBlockDetail on every fixture block', () => {
  for (const fx of fixtures) {
    it(`${fx}: records, restarts, padding and roles agree with the table parser`, () => {
      // Plain comparisons collected into one list: a hundred thousand expect() calls would be slow.
      const bad: string[] = [];
      const check = (ok: boolean, what: string) => {
        if (!ok && bad.length < 20) bad.push(what);
      };
      for (const t of tablesOf(fx)) {
        let refRec = 0;
        t.blocks.forEach((b, bi) => {
          const at = `${t.name} block ${bi}`;
          const d = decodeBlockDetail(t, bi, 0);
          check(d.error === null, `${at}: error ${JSON.stringify(d.error)}`);
          check(d.records.length === b.recordCount, `${at}: record count`);
          check(d.restartOffsets.length === b.restartCount, `${at}: restart count`);
          check(d.blockLen === b.blockLen, `${at}: block_len`);
          check(d.restartTable.start === b.restartTableOffset, `${at}: restart table offset`);
          check(
            (d.padding ? d.padding.end - d.padding.start : 0) === (b.type === 'log' ? 0 : b.padding),
            `${at}: padding`,
          );
          // Records tile the space between the block header and the restart table.
          let pos = d.blockHeader.end;
          for (const r of d.records) {
            const rat = `${at} record ${r.index}`;
            check(r.start === pos, `${rat}: starts where the previous ended`);
            check(
              r.prefix.start === r.start && r.suffixLen.start === r.prefix.end && r.suffix.start === r.suffixLen.end,
              `${rat}: field order`,
            );
            check(r.suffix.end - r.suffix.start === r.suffixLength, `${rat}: suffix length`);
            check(r.value.start === r.suffix.end && r.value.end === r.end, `${rat}: value span`);
            check(r.restart === d.restartOffsets.includes(r.start), `${rat}: restart flag`);
            check(d.recordOf[r.start] === r.index && d.recordOf[r.end - 1] === r.index, `${rat}: recordOf`);
            pos = r.end;
          }
          check(pos === d.restartTable.start, `${at}: records end at the restart table`);
          // Every byte has a role.
          check(d.roles.length === d.bytes.length && !d.roles.includes(ROLE.unknown), `${at}: roles cover every byte`);
          if (b.offset === 0)
            check(d.fileHeader?.start === 0 && d.fileHeader.end === t.header.headerSize, `${at}: file header span`);
          // Ref records: keys and values equal the parser's columns.
          if (b.type === 'ref') {
            const hs = t.header.hashSize;
            for (const r of d.records) {
              check(r.key === displayName(t.refs.names[refRec]), `${at} record ${r.index}: key`);
              const type = t.refs.types[refRec];
              check(r.valueType === type, `${at} record ${r.index}: value type`);
              if (type === 1 || type === 2) {
                check(
                  r.fields.find((f) => f.label === 'object id')?.text ===
                    toHex(t.refs.oids, refRec * hs, (refRec + 1) * hs),
                  `${at} record ${r.index}: oid`,
                );
              }
              refRec++;
            }
          }
        });
        check(refRec === t.refs.count, `${t.name}: every ref record seen`);
      }
      expect(bad).toEqual([]);
    });
  }

  it('log blocks: shown inflated, keys carry the update index', () => {
    const t = tablesOf('basic-sha1').find((x) => x.blocks.some((b) => b.type === 'log'))!;
    const bi = t.blocks.findIndex((b) => b.type === 'log');
    const d = decodeBlockDetail(t, bi);
    expect(d.inflated).toBe(true);
    expect(d.bytes.length).toBe(t.blocks[bi].blockLen);
    expect(d.records[0].key).toMatch(/ @ \d+$/);
    expect(d.records.every((r) => r.kind === 'log' || r.kind === 'log-deletion')).toBe(true);
  });

  it('damaged bytes give an error with an offset, never a throw', () => {
    const t = tablesOf('smallblocks')[0];
    const whole = t.source.read(0, t.fileSize).slice();
    let errors = 0;
    // Flip bytes at many positions inside the first few blocks; decode each block of the damaged copy.
    for (let k = 0; k < 400; k++) {
      const bytes = whole.slice();
      const at = 24 + ((k * 7919) % Math.min(whole.length - 100, 4 * 256));
      bytes[at] ^= 0xff >> (k % 8);
      const damaged: Table = { ...t, source: memorySource(bytes) };
      for (let bi = 0; bi < 5; bi++) {
        const d = decodeBlockDetail(damaged, bi);
        if (d.error) {
          errors++;
          expect(d.error.offset).toBeGreaterThanOrEqual(0);
          expect(d.error.expected.length).toBeGreaterThan(0);
        }
        expect(d.roles.length).toBe(d.bytes.length);
      }
    }
    expect(errors).toBeGreaterThan(0);
  });
});

describe('EngineSession', () => {
  const load = (fx: string, onProgress?: (p: LoadProgress) => void) => {
    const s = new EngineSession();
    const r = s.load(collectInput(path.join(FX, fx, 'reftable')), onProgress);
    return { s, r };
  };

  it('a simulation past its budget answers with a sentence saying how far it got, not an exception', () => {
    const { s } = load('recreate-1000');
    s.simulationBudgetMs = 1e-9;
    const a = s.simulate({ spec: 'create:3000:refs/heads/n/:per-ref', models: ['git-2.56'] });
    expect(a.ok).toBe(false);
    if (a.ok) return;
    expect(a.error.kind).toBe('engine');
    expect(a.error.message).toMatch(
      /^it ran past its 1e-12 s budget \(git-2\.56 had replayed [0-9,]+ of 3,000 operations\)\. Try a smaller batch/,
    );
  });

  it('report equals buildReport(analyzeFiles(...)) and progress reaches done', () => {
    // tombstones-50k takes the same path as the others (it is below the large-input size) but its
    // report simulates 50,000 tombstones for the diagnosis, seconds on each side of the
    // comparison; the other fixtures cover tombstones, shadowed refs and several tables.
    for (const fx of fixtures.filter((f) => f !== 'tombstones-50k')) {
      const phases: string[] = [];
      const { r } = load(fx, (p) => phases.push(p.phase));
      const want = buildReport(analyzeFiles(collectInput(path.join(FX, fx, 'reftable'))));
      expect(r.error).toBeNull();
      expect(r.report!.stack).toEqual(want.stack);
      expect(r.report!.tables.map((t) => t.name)).toEqual(want.tables.map((t) => t.name));
      expect(phases[0]).toBe('reading');
      expect(phases[phases.length - 1]).toBe('done');
      expect(r.splits.length).toBe(want.tables.length);
      r.splits.forEach((sp, i) => {
        expect(sp!.live + sp!.shadowed + sp!.tombstones).toBe(sp!.refRecords);
        expect(sp!.shadowed).toBe(want.tables[i].shadowed);
      });
    }
  });

  it('refsPage pages the merged view in byte order; prefix and substring filters; tombstones on demand', () => {
    for (const fx of ['basic-sha1', 'nocompact-s1', 'smallblocks']) {
      const { s, r } = load(fx);
      const a = analyzeFiles(collectInput(path.join(FX, fx, 'reftable')));
      const m = a.merged!;
      const all = m.keys.map(displayName);
      const live = m.keys.filter((_, i) => a.stack!.tables[m.table[i]]!.refs.types[m.rec[i]] !== 0).map(displayName);
      expect(r.refCount).toBe(live.length);
      expect(r.refCountWithTombstones).toBe(all.length);
      // Whole list in pages of 97.
      const names: string[] = [];
      for (let off = 0; ; off += 97) {
        const p = s.refsPage({ filter: '', mode: 'prefix', includeTombstones: false, offset: off, limit: 97 });
        expect(p.total).toBe(live.length);
        names.push(...p.rows.map((x) => x.name));
        if (p.rows.length < 97) break;
      }
      expect(names).toEqual(live);
      const withT = s.refsPage({ filter: '', mode: 'prefix', includeTombstones: true, offset: 0, limit: 5000 });
      expect(withT.rows.map((x) => x.name)).toEqual(all.slice(0, 5000));
      for (const f of ['refs/heads/', 'refs/tags/', 'refs/', 'HEAD', 'zzz', 'refs/heads/b']) {
        const p = s.refsPage({ filter: f, mode: 'prefix', includeTombstones: true, offset: 0, limit: 5000 });
        expect(p.rows.map((x) => x.name)).toEqual(all.filter((n) => n.startsWith(f)).slice(0, 5000));
      }
      for (const f of ['a', 'heads/m', '1']) {
        const p = s.refsPage({ filter: f, mode: 'substring', includeTombstones: false, offset: 0, limit: 5000 });
        expect(p.total).toBe(live.filter((n) => n.includes(f)).length);
        expect(p.rows.map((x) => x.name)).toEqual(live.filter((n) => n.includes(f)).slice(0, 5000));
      }
    }
  });

  it('rows carry kind, oid, source table and block; live oids equal for-each-ref', () => {
    const { s } = load('basic-sha1');
    const a = analyzeFiles(collectInput(path.join(FX, 'basic-sha1', 'reftable')));
    const listed = new Map(analysisRefs(a).map((x) => [displayName(x.name), x.oid]));
    const p = s.refsPage({ filter: '', mode: 'prefix', includeTombstones: false, offset: 0, limit: 100 });
    for (const row of p.rows) {
      if (listed.has(row.name)) expect(row.oid).toBe(listed.get(row.name));
      expect(row.table).toBeGreaterThanOrEqual(0);
      expect(row.block).toBeGreaterThanOrEqual(0);
      const d = s.blockDetail(row.table, row.block)!;
      expect(d.records[row.blockRecord].key).toBe(row.name);
    }
    expect(p.rows.find((x) => x.name === 'HEAD')?.kind).toBe('symref');
    expect(p.rows.some((x) => x.kind === 'peeled' && x.peeled)).toBe(true);
  });

  it('tableBlocks lists sections and blocks; a damaged table reports its error; nothing usable is an error, not a throw', () => {
    const { s } = load('smallblocks');
    const L = s.tableBlocks(0)!;
    expect(L.blocks.length).toBeGreaterThan(10);
    expect(L.sections[0].name).toBe('header');
    expect(L.sections[L.sections.length - 1]).toEqual({
      name: 'footer',
      start: L.fileSize - L.header!.footerSize,
      end: L.fileSize,
    });
    expect(s.tableBlocks(5)).toBeNull();
    expect(s.blockDetail(0, 99999)).toBeNull();

    const files = collectInput(path.join(FX, 'basic-sha1', 'reftable'));
    const bad = files.map((f) => {
      if (!f.path.endsWith('.ref') || !f.path.includes('0x00000000000d')) return f;
      const b = f.source.read(0, f.source.size).slice();
      b[b.length - 1] ^= 1; // footer CRC
      return { path: f.path, source: memorySource(b) };
    });
    const s2 = new EngineSession();
    const r2 = s2.load(bad);
    expect(r2.error).toBeNull();
    expect(r2.report!.tables[1].error?.expected).toMatch(/CRC/);
    expect(s2.tableBlocks(1)!.error?.expected).toMatch(/CRC/);
    expect(r2.splits[1]).toBeNull();

    const r3 = new EngineSession().load([{ path: 'notes.txt', source: memorySource(new Uint8Array([1, 2, 3])) }]);
    expect(r3.report).toBeNull();
    expect(r3.error?.file).toBe('notes.txt');
  });

  it('slicedSource splits large reads and reports each slice', () => {
    const data = new Uint8Array(1000).map((_, i) => i & 0xff);
    const seen: number[] = [];
    const src = slicedSource(
      data.length,
      (o, l) => data.slice(o, o + l),
      (n) => seen.push(n),
      64,
    );
    expect(Array.from(src.read(10, 500))).toEqual(Array.from(data.subarray(10, 510)));
    expect(seen.length).toBe(8);
    expect(seen.reduce((a, b) => a + b, 0)).toBe(500);
    expect(src.read(990, 100).length).toBe(10);
  });
});

describe('a block of more records than the detail lists', () => {
  it('says how many the block holds beside the ones listed', async () => {
    const { writeTable } = await import('../src/engine/reftable/writer.ts');
    const { openTable } = await import('../src/engine/reftable/table.ts');
    const { MAX_DETAIL_RECORDS } = await import('../src/engine/blockdetail.ts');
    // 12,000 names in one 16 MiB block: the count is the number written.
    const n = MAX_DETAIL_RECORDS + 2_000;
    const refs = Array.from({ length: n }, (_, i) => ({
      name: 'refs/heads/' + String(i).padStart(6, '0'),
      updateIndex: 1,
      type: 1 as const,
      value: new Uint8Array(20).fill(i & 255),
    }));
    const bytes = writeTable(refs, [], { minUpdateIndex: 1, maxUpdateIndex: 1, blockSize: 0xffffff });
    const t = openTable({ path: 'one-block.ref', source: memorySource(bytes) });
    const b = t.blocks.findIndex((x) => x.type === 'ref');
    const d = decodeBlockDetail(t, b);
    expect(d.records.length).toBe(MAX_DETAIL_RECORDS);
    expect(d.recordsCutAt).toBeDefined();
    expect(d.recordCount).toBe(n);
    // Within the bound: the list is the whole block.
    const whole = decodeBlockDetail(
      openTable({
        path: 's.ref',
        source: memorySource(writeTable(refs.slice(0, 7), [], { minUpdateIndex: 1, maxUpdateIndex: 1 })),
      }),
      0,
    );
    expect([whole.records.length, whole.recordCount]).toEqual([7, 7]);
  });
});
