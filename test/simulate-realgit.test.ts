/**
 * The time model against the real gits this project builds (scripts/setup-git.sh), as recorded on
 * the test machine by `npm run calibrate:real` (bench/realgit-timings.ts) into
 * src/engine/simulate/measured/real-gits.json: CPU seconds of git 2.47.3, 2.55.0 and a `next`
 * snapshot creating, deleting and re-creating n refs at distinct commits of a real pack, before and
 * after `git pack-refs`. Nothing here times anything: every expected value is a recorded
 * measurement (or a ratio of two), and the estimates are the simulator's for the same cases.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { CONSTANTS, COST_PARTS } from '../src/engine/simulate/index.ts';
import {
  measuredPoints,
  measuredModel,
  MODELLED_STEPS,
  pooledSteps,
  type MeasuredPoint,
  type RealGitsFile,
} from '../src/engine/simulate/measured.ts';
import { fitRealGits, realFitPoints, constantsFromRealFit, REAL_FIT_PARAMS } from '../src/engine/simulate/calibrate.ts';
import { agreementTable, gainRows } from '../src/engine/simulate/agreement.ts';
import { MEASURED_UP_TO } from '../src/engine/simulate/curve.ts';

const FILE = path.join(__dirname, '../src/engine/simulate/measured/real-gits.json');
const data: RealGitsFile = JSON.parse(fs.readFileSync(FILE, 'utf8'));
const within = (est: number, meas: number) => Math.max(est / meas, meas / est);

let pts: MeasuredPoint[] = [];
beforeAll(() => {
  pts = measuredPoints(data, { fixes: true });
}, 300_000);

describe('the recorded file', () => {
  it('says on what machine, when, with which gits, and holds every git the suite builds', () => {
    expect(data.schema).toBe('refscope.real-gits/1');
    expect(data.machine.nproc).toBeGreaterThan(0);
    expect(data.machine.cpu.length).toBeGreaterThan(0);
    expect(data.machine.date).toMatch(/^\d{4}-\d\d-\d\d$/);
    expect(Object.keys(data.gits).sort()).toEqual(['2.47.3', '2.55.0', '2.55.0+next.20260731']);
    // Distinct real commits: the pack holds at least one commit per ref of the largest case.
    const maxN = Math.max(...data.cases.map((c) => c.n));
    expect(data.objects.commits).toBeGreaterThanOrEqual(maxN);
    // n up to 16,000 for every git's reftable cycle (git 2.47.3 re-creating 16,000 refs over their
    // tombstones is minutes of CPU: measured once).
    for (const g of ['2.47.3', '2.55.0', '2.55.0+next.20260731']) {
      expect(
        Math.max(
          ...data.cases
            .filter((c) => c.git === g && c.backend === 'reftable' && c.workload === 'cycle')
            .map((c) => c.n),
        ),
      ).toBeGreaterThanOrEqual(16000);
    }
  });

  it("the chart's extrapolation starts where the recorded file ends (curve.measuredUpTo per model)", () => {
    for (const m of ['git-2.49', 'git-2.55', 'git-2.56', 'files'] as const) {
      const ns = data.cases
        .filter((c) => (c.backend === 'files' ? 'files' : measuredModel(data, c.git).model) === m)
        .filter((c) => c.workload === 'cycle')
        .map((c) => c.n);
      expect(MEASURED_UP_TO[m], m).toBe(Math.max(...ns));
    }
    expect(MEASURED_UP_TO.initial).toBe(0);
  });

  it('which model each git is, by what it did: the next snapshot re-creates in about the time it creates (the tombstone fix)', () => {
    expect(measuredModel(data, '2.47.3').model).toBe('git-2.49');
    expect(measuredModel(data, '2.55.0').model).toBe('git-2.55');
    // Its version line says 2.53.0.<n>.g<hash>: only the behaviour tells it has the fix.
    expect(data.gits['2.55.0+next.20260731'].versionLine).not.toMatch(/2\.5[6-9]/);
    expect(measuredModel(data, '2.55.0+next.20260731').model).toBe('git-2.56');
  });
});

describe('every estimate of the total within 1.5× of the recorded CPU time', () => {
  it('all recorded reftable cases (three gits, n up to 32,000, the variants)', () => {
    expect(pts.length).toBeGreaterThan(40);
    const bad = pts
      .filter((p) => p.backend === 'reftable' && within(p.estimated, p.measured) > 1.5)
      .map(
        (p) =>
          `${p.git} ${p.backend} ${p.workload} ${p.step} n=${p.n}: estimated ${p.estimated.toPrecision(3)} s, measured ${p.measured} s`,
      );
    expect(bad).toEqual([]);
    // Every modelled step of every case was checked.
    const steps = data.cases.reduce(
      (s, c) => s + Object.keys(c.steps).filter((k) => MODELLED_STEPS.includes(k)).length,
      0,
    );
    expect(pts.length).toBe(steps);
  });

  it('files backend: every estimate within 1.5× of the range its equivalent runs measured (file-system time on a shared machine varies up to 5× between identical runs)', () => {
    const files = pts.filter((p) => p.backend === 'files');
    expect(files.length).toBeGreaterThan(10);
    const bad: string[] = [];
    for (const p of files) {
      const c = data.cases.find(
        (x) => x.git === p.git && x.backend === 'files' && x.workload === p.workload && x.n === p.n,
      )!;
      const same = pooledSteps(c, p.step);
      const runs = same.flatMap((st) => c.steps[st]?.runs ?? []);
      const lo = Math.min(...runs) / 1.5,
        hi = Math.max(...runs) * 1.5;
      if (!(p.estimated >= lo && p.estimated <= hi))
        bad.push(
          `${p.git} files ${p.workload} ${p.step} n=${p.n}: estimated ${p.estimated.toPrecision(3)} s, runs ${runs.join(', ')}`,
        );
    }
    expect(bad).toEqual([]);
  });

  it('every predicted fix gain (pack-refs, a newer git) within 1.5× of the measured gain', () => {
    const g = gainRows(data, pts);
    expect(g.filter((r) => r.what === 'pack-refs').length).toBeGreaterThanOrEqual(12);
    expect(g.filter((r) => r.what.startsWith('newer git')).length).toBeGreaterThanOrEqual(8);
    const bad = g
      .filter((r) => within(r.predicted, r.measured) > 1.5)
      .map(
        (r) => `${r.what} ${r.git} n=${r.n}: predicted ×${r.predicted.toFixed(2)}, measured ×${r.measured.toFixed(2)}`,
      );
    expect(bad).toEqual([]);
  });

  it('with the fix, pack-refs barely moves the total (the costs outside the ref store dominate), and the fix panel says so', () => {
    const rec = pts.find(
      (p) => p.git === '2.55.0+next.20260731' && p.workload === 'cycle' && p.step === 'recreate' && p.n === 16000,
    )!;
    const packed = pts.find(
      (p) => p.git === rec.git && p.workload === 'cycle' && p.step === 'recreate-packed' && p.n === 16000,
    )!;
    const fix = rec.result.fixes.find((f) => f.fix === 'pack-refs')!;
    // Measured: the gain is below ×2.
    expect(rec.measured / packed.measured).toBeLessThan(2);
    expect(fix.speedup!).toBeLessThan(2);
    // The ref store alone gains more than the total: the total is what is claimed.
    expect(fix.refStoreSpeedup!).toBeGreaterThan(fix.speedup!);
    expect(fix.speedup!).toBeCloseTo(fix.baselineSeconds / fix.seconds!, 12);
  });

  it('the breakdown: outside the ref store is most of a create with the fixed git, and the parts add up to the total', () => {
    const p = pts.find(
      (x) => x.git === '2.55.0+next.20260731' && x.workload === 'cycle' && x.step === 'create' && x.n === 16000,
    )!;
    const parts = p.result.results[0].parts!;
    const sum = parts.reduce((s, x) => s + x.seconds, 0);
    expect(sum).toBeCloseTo(p.estimated, 9);
    expect(parts.map((x) => x.part)).toEqual(COST_PARTS.filter((c) => parts.some((x) => x.part === c)));
    const objects = parts.find((x) => x.part === 'objects')!;
    expect(objects.estimate).toBe(true);
    expect(objects.share).toBeGreaterThan(0.3);
  });
});

describe('the constants are the fit of this file', () => {
  it('refitting on the recorded data gives the constants in use (each within 1 %)', () => {
    const fit = fitRealGits(realFitPoints(data, pts));
    const k = constantsFromRealFit(fit);
    for (const key of [
      'startup',
      'perUpdate',
      'perObjectCheck',
      'perReflog',
      'perTransaction',
      'perLooseWrite',
      'perRecord',
    ] as const) {
      const a = k[key];
      const b = CONSTANTS[key];
      expect(Math.abs(a - b), key).toBeLessThanOrEqual(0.01 * Math.max(Math.abs(a), Math.abs(b)) + 1e-12);
    }
    for (const m of ['git-2.49', 'git-2.56'] as const) {
      expect(Math.abs(k.perRecordByModel[m]! / CONSTANTS.perRecordByModel[m]! - 1)).toBeLessThan(0.01);
    }
    expect(
      Math.abs((k.perUpdateByModel?.['git-2.49'] ?? 0) - (CONSTANTS.perUpdateByModel?.['git-2.49'] ?? 0)),
    ).toBeLessThanOrEqual(0.01 * (CONSTANTS.perUpdateByModel?.['git-2.49'] ?? 0) + 1e-12);
    expect(REAL_FIT_PARAMS.length).toBe(Object.keys(fit.values).length);
  });

  it("the README's agreement table is the one generated from this file", () => {
    const readme = fs.readFileSync(path.join(__dirname, '../README.md'), 'utf8');
    expect(readme).toContain(agreementTable(data, pts));
  });
});
