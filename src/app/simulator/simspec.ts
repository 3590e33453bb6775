/**
 * The Simulator view's workload picker ⇄ workload specs (`recreate`, `create:1000:refs/heads/x/`,
 * `lookup:missing:1000`, … docs/simulator.md "Workload specs"; `stdin` for pasted input), and the
 * name-free description of a workload that a share link may carry (a code, never the prefix).
 * Pure functions.
 */

export type Gen = 'recreate' | 'create' | 'delete-all' | 'lookup' | 'scan' | 'oid' | 'stdin';
export type LookupWhich = 'existing' | 'missing' | 'tombstoned' | 'names';

/** The picker's fields (text as typed). */
export interface WorkloadForm {
  gen: Gen;
  /** One transaction per ref (`:per-ref`) for recreate, create and delete-all. */
  perRef: boolean;
  createN: string;
  createPrefix: string;
  lookupWhich: LookupWhich;
  lookupN: string;
  /** Names for `lookup:names`, one per line. */
  lookupNames: string;
  scanPrefix: string;
  scanN: string;
  oidN: string;
}

export const DEFAULT_FORM: WorkloadForm = {
  gen: 'recreate',
  perRef: false,
  createN: '1000',
  createPrefix: 'refs/heads/sim/',
  lookupWhich: 'existing',
  lookupN: '1000',
  lookupNames: '',
  scanPrefix: 'refs/heads/',
  scanN: '1',
  oidN: '1000',
};

/** Largest count a spec takes (workload.ts). */
export const MAX_COUNT = 10_000_000;

function count(s: string, what: string): number | string {
  const t = s.trim();
  if (!/^\d{1,8}$/.test(t)) return `${what}: a whole number from 1 to 10,000,000`;
  const n = Number(t);
  return n >= 1 && n <= MAX_COUNT ? n : `${what}: a whole number from 1 to 10,000,000`;
}

/** The spec of the picker's workload, or what is wrong with a field. */
export function specOf(f: WorkloadForm): { spec: string } | { error: string } {
  const tx = f.perRef ? ':per-ref' : '';
  switch (f.gen) {
    case 'recreate':
      return { spec: `recreate${tx}` };
    case 'delete-all':
      return { spec: `delete-all${tx}` };
    case 'create': {
      const n = count(f.createN, 'Refs to create');
      if (typeof n === 'string') return { error: n };
      const p = f.createPrefix.trim();
      if (!p) return { error: 'Prefix: a ref name prefix, e.g. refs/heads/new/' };
      if (p.includes(':')) return { error: 'Prefix: a ref name cannot contain “:”' };
      return { spec: `create:${n}:${p}${tx}` };
    }
    case 'lookup': {
      if (f.lookupWhich === 'names') {
        const names = f.lookupNames
          .split(/\r?\n/)
          .map((s) => s.trim())
          .filter(Boolean);
        if (!names.length) return { error: 'Names to read: at least one ref name, one per line' };
        if (names.some((x) => x.includes(':'))) return { error: 'Names to read: a ref name cannot contain “:”' };
        return { spec: `lookup:names:${names.join(':')}` };
      }
      const n = count(f.lookupN, 'Reads');
      if (typeof n === 'string') return { error: n };
      return { spec: `lookup:${f.lookupWhich}:${n}` };
    }
    case 'scan': {
      const n = count(f.scanN, 'Scans');
      if (typeof n === 'string') return { error: n };
      const p = f.scanPrefix.trim();
      if (p.includes(':')) return { error: 'Scan prefix: a ref name cannot contain “:”' };
      return { spec: `scan:${p}${n === 1 ? '' : `:${n}`}` };
    }
    case 'oid': {
      const n = count(f.oidN, 'Lookups');
      if (typeof n === 'string') return { error: n };
      return { spec: `oid:${n}` };
    }
    case 'stdin':
      return { spec: 'stdin' };
  }
}

/** The picker's fields for a spec (from a deep link); unknown specs give `base`. */
export function formFromSpec(spec: string, base: WorkloadForm): WorkloadForm {
  const f = spec.split(':');
  const perRef = f[f.length - 1] === 'per-ref';
  switch (f[0]) {
    case 'recreate':
      return { ...base, gen: 'recreate', perRef };
    case 'delete-all':
      return { ...base, gen: 'delete-all', perRef };
    case 'create':
      return { ...base, gen: 'create', perRef, createN: f[1] ?? base.createN, createPrefix: f[2] ?? base.createPrefix };
    case 'lookup':
      if (f[1] === 'names')
        return { ...base, gen: 'lookup', lookupWhich: 'names', lookupNames: f.slice(2).filter(Boolean).join('\n') };
      if (f[1] === 'oid') return { ...base, gen: 'oid', oidN: f[2] ?? base.oidN };
      if (f[1] === 'existing' || f[1] === 'missing' || f[1] === 'tombstoned')
        return { ...base, gen: 'lookup', lookupWhich: f[1], lookupN: f[2] ?? base.lookupN };
      return base;
    case 'scan':
      return { ...base, gen: 'scan', scanPrefix: f[1] ?? '', scanN: f[2] ?? '1' };
    case 'oid':
      return { ...base, gen: 'oid', oidN: f[1] ?? base.oidN };
    case 'stdin':
      return { ...base, gen: 'stdin' };
    default:
      return base;
  }
}

// Workload codes and their name-free labels are the link's layout: the engine defines them (CLI and app alike).
export { WORKLOAD_CODES, workloadCode, workloadLabel, type WorkloadCode } from '../../engine/share/simulation.ts';
