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
  gen: 'recreate', perRef: false, createN: '1000', createPrefix: 'refs/heads/sim/', lookupWhich: 'existing', lookupN: '1000',
  lookupNames: '', scanPrefix: 'refs/heads/', scanN: '1', oidN: '1000',
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
    case 'recreate': return { spec: `recreate${tx}` };
    case 'delete-all': return { spec: `delete-all${tx}` };
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
        const names = f.lookupNames.split(/\r?\n/).map((s) => s.trim()).filter(Boolean);
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
    case 'stdin': return { spec: 'stdin' };
  }
}

/** The picker's fields for a spec (from a deep link); unknown specs give `base`. */
export function formFromSpec(spec: string, base: WorkloadForm): WorkloadForm {
  const f = spec.split(':');
  const perRef = f[f.length - 1] === 'per-ref';
  switch (f[0]) {
    case 'recreate': return { ...base, gen: 'recreate', perRef };
    case 'delete-all': return { ...base, gen: 'delete-all', perRef };
    case 'create':
      return { ...base, gen: 'create', perRef, createN: f[1] ?? base.createN, createPrefix: f[2] ?? base.createPrefix };
    case 'lookup':
      if (f[1] === 'names') return { ...base, gen: 'lookup', lookupWhich: 'names', lookupNames: f.slice(2).filter(Boolean).join('\n') };
      if (f[1] === 'oid') return { ...base, gen: 'oid', oidN: f[2] ?? base.oidN };
      if (f[1] === 'existing' || f[1] === 'missing' || f[1] === 'tombstoned') return { ...base, gen: 'lookup', lookupWhich: f[1], lookupN: f[2] ?? base.lookupN };
      return base;
    case 'scan': return { ...base, gen: 'scan', scanPrefix: f[1] ?? '', scanN: f[2] ?? '1' };
    case 'oid': return { ...base, gen: 'oid', oidN: f[1] ?? base.oidN };
    case 'stdin': return { ...base, gen: 'stdin' };
    default: return base;
  }
}

/** Workload codes a share link carries (numbers: never a name). */
export const WORKLOAD_CODES = ['stdin', 'recreate', 'create', 'delete-all', 'lookup-existing', 'lookup-missing', 'lookup-tombstoned', 'lookup-names', 'scan', 'oid'] as const;
export type WorkloadCode = (typeof WORKLOAD_CODES)[number];

export function workloadCode(spec: string | null): number {
  if (spec === null || spec === 'stdin') return 0;
  const f = spec.split(':');
  const c = f[0] === 'lookup' ? (f[1] === 'oid' ? 'oid' : `lookup-${f[1]}`) : f[0];
  const i = (WORKLOAD_CODES as readonly string[]).indexOf(c);
  return i < 0 ? 0 : i;
}

function n(v: number): string {
  return Math.round(v).toLocaleString('en-US');
}

/** A name-free description of a workload from its code and size. */
export function workloadLabel(code: number, operations: number, transactions: number): string {
  const tx = transactions <= 1 ? ', one transaction' : transactions === operations ? ', one transaction per ref' : `, ${n(transactions)} transactions`;
  switch (WORKLOAD_CODES[code]) {
    case 'recreate': return `re-create the ${n(operations)} refs that tombstones hide${tx}`;
    case 'create': return `create ${n(operations)} new refs under one prefix${tx}`;
    case 'delete-all': return `delete all ${n(operations)} refs under refs/${tx}`;
    case 'lookup-existing': return `${n(operations)} reads of existing ref names`;
    case 'lookup-missing': return `${n(operations)} reads of missing ref names`;
    case 'lookup-tombstoned': return `${n(operations)} reads of tombstoned ref names`;
    case 'lookup-names': return `${n(operations)} reads of given ref names`;
    case 'scan': return operations === 1 ? 'a prefix scan (for-each-ref)' : `${n(operations)} prefix scans (for-each-ref)`;
    case 'oid': return `${n(operations)} lookups by object id`;
    default: return `update-ref --stdin input: ${n(operations)} updates in ${n(transactions)} transaction${transactions === 1 ? '' : 's'}`;
  }
}
