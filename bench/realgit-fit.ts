/**
 * `npm run calibrate:fit`: refit the time constants on the recorded real-git timings
 * (src/engine/simulate/measured/real-gits.json) and print them with every case's estimate
 * against its measurement, and the README's agreement table (`--table`).
 *
 *   --constants  print the constants line for constants.ts (rounded to three digits)
 *   --readme     write the README's agreement table with the constants in use
 *   --refit      with --readme/--table: use the refitted constants, rounded as --constants prints
 *                them (after a new measurement: paste the line, and the table already matches)
 */
import fs from 'node:fs';
import { measuredPoints, type RealGitsFile } from '../src/engine/simulate/measured.ts';
import { fitRealGits, constantsFromRealFit, realFitPoints } from '../src/engine/simulate/calibrate.ts';
import { agreementTable } from '../src/engine/simulate/agreement.ts';

const data: RealGitsFile = JSON.parse(fs.readFileSync('src/engine/simulate/measured/real-gits.json', 'utf8'));
const pts = measuredPoints(data);
const fit = fitRealGits(realFitPoints(data, pts));
console.log(JSON.stringify(fit, null, 1));
const REFIT = process.argv.includes('--refit');
const r3 = (x: number) => Number(x.toPrecision(3));
const rounded = {
  ...fit,
  values: Object.fromEntries(Object.entries(fit.values).map(([n, v]) => [n, r3(v)])),
} as typeof fit;
const k = constantsFromRealFit(REFIT ? rounded : fit);
const again = measuredPoints(data, { constants: k, fixes: true });
for (const p of again) {
  console.log(
    `${p.git.padEnd(22)} ${p.backend.padEnd(8)} ${p.workload.padEnd(12)} ${p.step.padEnd(28)} ${String(p.n).padStart(6)} meas ${p.measured.toPrecision(3).padStart(8)} est ${p.estimated.toPrecision(3).padStart(8)} ratio ${(p.estimated / p.measured).toFixed(2)}`,
  );
}
if (process.argv.includes('--table')) console.log(agreementTable(data, again));
if (process.argv.includes('--constants')) {
  const r = (x: number) => Number(x.toPrecision(3));
  const v = fit.values;
  console.log(`export const CONSTANTS: TimeConstants = makeConstants(${r(v.startup)}, ${r(v.perUpdate)}, ${r(v['perRecord(git-2.55)'])}, ${r(v.perLooseWrite)},
  { 'git-2.49': ${r(v['perRecord(git-2.49)'])}, 'git-2.56': ${r(v['perRecord(git-2.56)'])} },
  { perObjectCheck: ${r(v.perObjectCheck)}, perReflog: ${r(v.perReflog)}, perTransaction: ${r(v.perTransaction)}, perUpdateByModel: { 'git-2.49': ${r(v['perUpdate(git-2.49)'])} },
    perTransactionFiles: ${r(v['perTransaction(files)'])}, perReflogFiles: ${r(v['perReflog(files)'])}, perValueWrite: ${r(v.perValueWrite)}, perLongScanBlock: ${r(v.perLongScanBlock)} });`);
}
if (process.argv.includes('--readme')) {
  const readme = fs.readFileSync('README.md', 'utf8');
  const a = readme.indexOf('<!-- agreement:start -->\n');
  const b = readme.indexOf('<!-- agreement:end -->');
  if (a < 0 || b < a) throw new Error('README.md: no <!-- agreement:start --> … <!-- agreement:end --> markers');
  const table = agreementTable(data, REFIT ? again : measuredPoints(data, { fixes: true }));
  fs.writeFileSync('README.md', readme.slice(0, a + '<!-- agreement:start -->\n'.length) + table + readme.slice(b));
  console.log('README.md: agreement table written');
}
