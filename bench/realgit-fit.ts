import fs from 'node:fs';
import { measuredPoints, type RealGitsFile } from '../src/engine/simulate/measured.ts';
import { fitRealGits } from '../src/engine/simulate/calibrate.ts';
const data: RealGitsFile = JSON.parse(fs.readFileSync('src/engine/simulate/measured/real-gits.json', 'utf8'));
const t0 = Date.now();
const pts = measuredPoints(data);
console.log('points', pts.length, Date.now() - t0, 'ms');
const starts = Object.entries(data.gits).map(([g, v]) => ({ model: 'git-2.55' as const, counts: { ...pts[0].counts, ...Object.fromEntries(Object.keys(pts[0].counts).map((k) => [k, 0])), processes: 1 }, seconds: v.processStart['update-ref-empty (reftable)'].cpu }));
const fit = fitRealGits([...pts.map((p) => ({ model: p.model, counts: p.counts, seconds: p.measured })), ...starts]);
console.log(fit);
for (const p of pts) {
  const c = p.counts;
  console.log(p.git, p.backend, p.workload, p.step, p.n, 'meas', p.measured, 'recs', c.recordsDecoded, 'obj', c.objectChecks, 'tx', c.transactions, 'cmp', c.compactions, 'lw', c.looseWrites);
}
