/**
 * `npm run calibrate:fit`: refit the time constants on the recorded real-git timings
 * (src/engine/simulate/measured/real-gits.json) and print them with every case's estimate
 * against its measurement, and the README's agreement table (`--table`).
 */
import fs from 'node:fs';
import { measuredPoints, type RealGitsFile } from '../src/engine/simulate/measured.ts';
import { fitRealGits, constantsFromRealFit, realFitPoints } from '../src/engine/simulate/calibrate.ts';
import { agreementTable } from '../src/engine/simulate/agreement.ts';

const data: RealGitsFile = JSON.parse(fs.readFileSync('src/engine/simulate/measured/real-gits.json', 'utf8'));
const pts = measuredPoints(data);
const fit = fitRealGits(realFitPoints(data, pts));
console.log(JSON.stringify(fit, null, 1));
const k = constantsFromRealFit(fit);
const again = measuredPoints(data, { constants: k, fixes: true });
for (const p of again) {
  console.log(`${p.git.padEnd(22)} ${p.backend.padEnd(8)} ${p.workload.padEnd(12)} ${p.step.padEnd(28)} ${String(p.n).padStart(6)} meas ${p.measured.toPrecision(3).padStart(8)} est ${p.estimated.toPrecision(3).padStart(8)} ratio ${(p.estimated / p.measured).toFixed(2)}`);
}
if (process.argv.includes('--table')) console.log(agreementTable(data, again));
