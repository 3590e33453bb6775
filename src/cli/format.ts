/**
 * The readable terminal form of a report (`refscope analyze` without --json).
 */
import { blocksOf, copyRunEnd, type Report } from '../engine/report.ts';
import { oneLine, sizeText } from '../engine/basics.ts';

function n(x: number): string {
  return x.toLocaleString('en-US');
}
const bytes = sizeText;

/** Render a report as plain text for a terminal (80 columns). */
export function formatReport(r: Report): string {
  const out: string[] = [];
  out.push(`refscope — ${oneLine(r.input.description)}`);
  // Said first: when git refuses the input, nothing below is git's behaviour.
  if (r.verdict && !r.verdict.gitReadable) {
    out.push(
      `GIT CANNOT READ THIS ${r.stack ? 'STACK' : 'REPOSITORY'}: ${oneLine(r.verdict.reason ?? '')}. What follows is refscope's reading of the intact parts, not what git sees or does.`,
    );
  }
  if (r.stack) {
    const s = r.stack;
    out.push(
      `${n(s.tables)} table${s.tables === 1 ? '' : 's'}, ${bytes(s.totalBytes)}; ${n(s.live)} live ref${s.live === 1 ? '' : 's'}, ${n(s.tombstones)} tombstone${s.tombstones === 1 ? '' : 's'} (${n(s.tombstonesHiding)} hide${s.tombstonesHiding === 1 ? 's' : ''} an older record)${s.incomplete ? '; INCOMPLETE: some tables could not be read' : ''}`,
    );
    out.push('');
    out.push(
      '  #  table                                         bytes    refs  tomb  shadowed  logs  blocks  upd-index',
    );
    for (let i = 0; i < r.tables.length; i++) {
      const t = r.tables[i];
      const rec = t.records;
      // A run of consecutive lines naming the same earlier file with the same figures is one
      // line: the report grows with the runs, not with the lines of tables.list.
      const end = copyRunEnd(r, i);
      if (end > i) {
        out.push(
          `${String(i).padStart(3)}  positions ${n(i)}–${n(end)} (${n(end - i + 1)}): same file as #${t.copyOf}, shadowed ${n(t.shadowed)} each`,
        );
        i = end;
        continue;
      }
      out.push(
        `${String(i).padStart(3)}  ${oneLine(t.name).padEnd(44).slice(0, 44)} ${String(t.fileSize).padStart(8)} ${String(rec.ref + rec.peeled + rec.symref).padStart(7)} ${String(rec.tombstone).padStart(5)} ${String(t.shadowed).padStart(9)} ${String(rec.log + rec.logDeletion).padStart(5)} ${String(blocksOf(r, i).length).padStart(7)}  ${t.error ? 'ERROR' : `${t.minUpdateIndex}..${t.maxUpdateIndex}`}${t.copyOf !== undefined ? ` (same file as #${t.copyOf})` : ''}`,
      );
      if (t.error) out.push(`     error: offset ${t.error.offset}: expected ${oneLine(t.error.expected)}`);
    }
    const ns = Object.entries(s.namespaces).sort((a, b) => b[1] - a[1]);
    if (ns.length) {
      out.push('');
      out.push('live refs by namespace: ' + ns.map(([k, v]) => `${oneLine(k)} ${n(v)}`).join(', '));
    }
    // Where tombstones sit: a scan bounded to a prefix steps over every record under it.
    const tomb = r.prefixes.filter((p) => p.tombstones > 0).slice(0, 5);
    if (tomb.length) {
      out.push('records under a prefix (a scan of it steps over them all):');
      for (const p of tomb)
        out.push(
          `  ${oneLine(p.prefix)}  ${n(p.records)} record${p.records === 1 ? '' : 's'}, ${n(p.tombstones)} tombstone${p.tombstones === 1 ? '' : 's'}, ${n(p.live)} live` +
            (p.live ? ` (${n(Math.round(p.records / p.live))} records per live ref)` : ''),
        );
    }
    const bad = s.continuity.filter((c) => c.status !== 'ok');
    // Consecutive tables with the same break (the copies of one file) are one line.
    for (let k = 0; k < bad.length; k++) {
      const c = bad[k];
      let e = k;
      while (
        e + 1 < bad.length &&
        bad[e + 1].table === (bad[e].through ?? bad[e].table) + 1 &&
        r.tables[bad[e + 1].table]?.copyOf !== undefined &&
        r.tables[bad[e + 1].table]?.copyOf === r.tables[bad[e].table]?.copyOf &&
        bad[e + 1].status === c.status &&
        bad[e + 1].expectedMin === c.expectedMin &&
        bad[e + 1].actualMin === c.actualMin
      )
        e++;
      const through = bad[e].through ?? bad[e].table;
      out.push(
        `update-index ${c.status} before table${through > c.table ? `s ${c.table}–${through}` : ` ${c.table}`}: expected min ${c.expectedMin}, found ${c.actualMin}`,
      );
      k = e;
    }
  }
  const pr = r.packedRefs as { namespaces?: Record<string, number> } | undefined;
  if (!r.stack && pr?.namespaces) {
    const ns = Object.entries(pr.namespaces).sort((a, b) => b[1] - a[1]);
    const all = ns.reduce((x, [, v]) => x + v, 0);
    if (ns.length) {
      out.push('');
      out.push(
        'live refs by namespace: ' +
          ns.map(([k, v]) => `${oneLine(k)} ${n(v)} (${Math.round((100 * v) / all)} %)`).join(', '),
      );
    }
  }
  if (r.findings.length) {
    out.push('');
    for (const f of r.findings)
      out.push(
        `${f.severity}: ${oneLine(f.file)}${f.offset >= 0 ? `: offset ${f.offset}` : ''}: ${oneLine(f.message)}`,
      );
  }
  if (r.diagnosis) {
    out.push('');
    out.push(oneLine(r.diagnosis));
  }
  return out.join('\n') + '\n';
}
