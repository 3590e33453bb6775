/**
 * agreement: the README's agreement table, generated from the recorded real-git timings
 * (measured/real-gits.json) and the model's estimates of the same cases (measured.ts). The test
 * suite checks the README holds exactly this table, so it cannot drift from the data.
 */
import type { MeasuredPoint, RealGitsFile } from './measured.ts';
import { measuredModel } from './measured.ts';

const s3 = (x: number): string =>
  x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x >= 1 ? x.toFixed(2) : x >= 0.1 ? x.toFixed(3) : x.toFixed(4);
const cell = (p: MeasuredPoint | undefined): string => (p ? `${s3(p.measured)} / ${s3(p.estimated)}` : '');
const ratio = (a: number, b: number): number => Math.max(a / b, b / a);

/** Gains of the fixes: pack-refs per (git, n), newer git per (older git, n). */
export interface GainRow {
  what: string;
  git: string;
  n: number;
  measured: number;
  predicted: number;
}

/** Every fix gain the recorded data can check (reftable `cycle` cases). */
export function gainRows(data: RealGitsFile, pts: MeasuredPoint[]): GainRow[] {
  const out: GainRow[] = [];
  const get = (git: string, step: string, n: number) =>
    pts.find(
      (p) => p.git === git && p.backend === 'reftable' && p.workload === 'cycle' && p.step === step && p.n === n,
    );
  const gits = [...new Set(pts.filter((p) => p.backend === 'reftable').map((p) => p.git))];
  for (const g of gits) {
    for (const rec of pts.filter(
      (p) => p.git === g && p.backend === 'reftable' && p.workload === 'cycle' && p.step === 'recreate',
    )) {
      const packed = get(g, 'recreate-packed', rec.n);
      const fix = rec.result.fixes.find((f) => f.fix === 'pack-refs');
      if (packed && fix?.speedup)
        out.push({
          what: 'pack-refs',
          git: g,
          n: rec.n,
          measured: rec.measured / packed.measured,
          predicted: fix.speedup,
        });
    }
  }
  const fixed = gits.filter((g) => measuredModel(data, g).model === 'git-2.56');
  for (const g of gits) {
    if (fixed.includes(g)) continue;
    for (const f of fixed) {
      for (const rec of pts.filter(
        (p) => p.git === g && p.backend === 'reftable' && p.workload === 'cycle' && p.step === 'recreate',
      )) {
        const newer = get(f, 'recreate', rec.n);
        if (newer)
          out.push({
            what: `newer git (${f})`,
            git: g,
            n: rec.n,
            measured: rec.measured / newer.measured,
            predicted: rec.estimated / newer.estimated,
          });
      }
    }
  }
  return out;
}

/** The Markdown: machine line, then per-case and per-gain tables. */
export function agreementTable(data: RealGitsFile, pts: MeasuredPoint[]): string {
  const m = data.machine;
  const lines: string[] = [];
  const worst = pts
    .filter((p) => p.backend === 'reftable')
    .reduce((w, p) => Math.max(w, ratio(p.estimated, p.measured)), 1);
  const worstFiles = pts
    .filter((p) => p.backend === 'files')
    .reduce((w, p) => Math.max(w, ratio(p.estimated, p.measured)), 1);
  const gains = gainRows(data, pts);
  const worstGain = gains.reduce((w, g) => Math.max(w, ratio(g.predicted, g.measured)), 1);
  lines.push(
    `Measured ${m.date} on ${m.nproc} × ${m.cpu} (${m.memoryGB} GB, Linux ${m.kernel}, shared with other jobs: CPU seconds of the git process, user + sys, median of up to 3 runs) by \`npm run calibrate:real\`, in a repository of ${data.objects.commits.toLocaleString('en-US')} commits (${(data.objects.packBytes / 1e6).toFixed(1)} MB pack), refs at distinct commits. Each cell: measured / estimated seconds (files: the median of its equivalent runs). Worst reftable estimate ${worst.toFixed(2)}× off, worst fix gain ${worstGain.toFixed(2)}× off; files backend up to ${worstFiles.toFixed(2)}× off the median (identical files-backend runs differ up to 5× here: file-system time on a shared machine; each estimate lies within 1.5× of the range of its runs).`,
  );
  lines.push('');
  lines.push('| git (model) | backend | n | create | delete | recreate | recreate after pack-refs |');
  lines.push('|---|---|---|---|---|---|---|');
  const gits = Object.keys(data.gits).sort();
  for (const g of gits) {
    for (const backend of ['reftable', 'files'] as const) {
      const ns = [
        ...new Set(pts.filter((p) => p.git === g && p.backend === backend && p.workload === 'cycle').map((p) => p.n)),
      ].sort((a, b) => a - b);
      for (const n of ns) {
        const at = (step: string) =>
          pts.find(
            (p) => p.git === g && p.backend === backend && p.workload === 'cycle' && p.step === step && p.n === n,
          );
        const model = backend === 'files' ? 'files' : measuredModel(data, g).model;
        lines.push(
          `| ${g} (${model}) | ${backend} | ${n.toLocaleString('en-US')} | ${cell(at(backend === 'files' ? 'create' : 'create'))} | ${cell(at(backend === 'files' ? 'delete-packed' : 'delete'))} | ${cell(at('recreate'))} | ${cell(at(backend === 'files' ? 'recreate-after-packed-delete' : 'recreate-packed'))} |`,
        );
      }
    }
  }
  const variants = pts.filter((p) => p.workload !== 'cycle');
  if (variants.length) {
    lines.push('');
    lines.push('| git | backend | variant (create n) | n | measured / estimated |');
    lines.push('|---|---|---|---|---|');
    for (const p of variants)
      lines.push(`| ${p.git} | ${p.backend} | ${p.workload} | ${p.n.toLocaleString('en-US')} | ${cell(p)} |`);
  }
  if (gains.length) {
    lines.push('');
    lines.push('| fix | git | n | gain measured | gain predicted |');
    lines.push('|---|---|---|---|---|');
    for (const g of gains)
      lines.push(
        `| ${g.what} | ${g.git} | ${g.n.toLocaleString('en-US')} | ×${s3(g.measured)} | ×${s3(g.predicted)} |`,
      );
  }
  return lines.join('\n') + '\n';
}
