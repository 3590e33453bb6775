/** share/describe: what a link contains, in words, for the share dialog and the CLI. */
import { sizeText, displayName } from '../basics.ts';
import { fmt, plural } from './limits.ts';
import { type SharePayload, shareFigures } from './payload.ts';
import { REMOVED, sanitizeSimulation } from './redact.ts';

/** What a link contains, for the share dialog (shown before the link is copied). */
export interface ShareDescription {
  /** One line: what was shared. */
  summary: string;
  /** What the link contains, one entry per line. */
  contains: string[];
  /** What it does not contain. */
  omits: string[];
  /** True when real names are in the link. */
  withNames: boolean;
}

const bytesText = sizeText;

/** Human-readable list of exactly what the payload holds. */
export function describeShare(p: SharePayload): ShareDescription {
  const f = shareFigures(p);
  const contains: string[] = [];
  const omits: string[] = [];
  const nsList = p.namespaces.map(displayName).join(', ') || 'none';
  if (p.kind === 'reftable') {
    const versions = [
      ...new Set(
        p.tables
          .filter((t) => t.version)
          .map((t) => `${t.hashId === 's256' ? 'SHA-256' : 'SHA-1'}, format ${t.version}`),
      ),
    ];
    const blockSizes = [...new Set(p.tables.filter((t) => !t.unreadable).map((t) => t.blockSize))];
    const summary = `reftable stack: ${plural(p.tables.length, 'table')}, ${bytesText(f.totalBytes)}, ${plural(f.live, 'live ref')}, ${plural(f.tombstones, 'tombstone')}`;
    contains.push(
      `Stack: ${plural(p.tables.length, 'table')} (${versions.join('; ') || 'none readable'}; block size ${blockSizes.join(', ') || '–'}), ${fmt(f.totalBytes)} bytes in all${p.tables.some((t) => t.unreadable) ? `; ${plural(p.tables.filter((t) => t.unreadable).length, 'table')} could not be read (only its size is included)` : ''}.`,
    );
    contains.push(
      'Per table: file size, update-index range, block size, restart interval, blocks and bytes per section (ref, index, obj, log), index levels, obj and index record counts, distinct object-id count (a number, not the ids), and the key bytes the ref records store (a number).',
    );
    contains.push(
      `Per table and namespace: record counts by kind (refs, peeled tags, symrefs, tombstones) and how many win in the merged view; ${plural(f.refRecords, 'ref record')} and ${plural(f.logRecords, 'reflog record')} in all (reflog records as counts only).`,
    );
    contains.push(
      p.overlaps.length
        ? `Overrides: for ${plural(p.overlaps.length, 'pair')} of (newer table, older table, namespace), how many records of the older table the newer one overrides and how many of those its tombstones hide; ${plural(f.tombstonesHiding, 'tombstone')} hide older records.`
        : 'Overrides: none (no table overrides a record of an older one).',
    );
    contains.push(
      `Namespaces (${p.namespaces.length}): ${nsList}${p.withNames ? '' : ' — remote names are replaced by remote-1, remote-2, …; unusual namespace names by other-1, …'}.`,
    );
    contains.push(
      `Compaction: geometric factor ${p.factor} (the geometry and the diagnosis are recomputed from the numbers above).`,
    );
    if (p.measured) {
      const mk = Object.keys(p.measured.compaction);
      const ms = sanitizeSimulation(p.measured.compaction, true);
      contains.push(
        `Measured on the real tables: ${mk.length ? `${mk.join(', ')} (${plural(ms.numbers, 'number')}${ms.labels.length ? `, ${plural(ms.labels.length, 'label')}` : ''})` : 'no figures'}${p.measured.diagnosis ? '; the diagnosis paragraph as the sharer saw it' : ''}.`,
      );
    }
    contains.push(...findingsLines(p), simulationLine(p), namesLine(p));
    omits.push(...baseOmits(p));
    return { summary, contains, omits, withNames: p.withNames };
  }
  const summary = `${p.kind === 'files' ? 'files backend' : 'packed-refs file'}: ${plural(f.live, 'live ref')}`;
  contains.push(
    `Live refs per namespace: ${p.namespaces.map((ns, i) => `${displayName(ns)} ${fmt(p.liveByNs?.[i] ?? 0)}`).join(', ') || 'none'}${p.withNames ? '' : ' (remote names replaced by remote-1, …)'}.`,
  );
  contains.push(...findingsLines(p), simulationLine(p), namesLine(p));
  omits.push(...baseOmits(p));
  return { summary, contains, omits, withNames: p.withNames };
}

function findingsLines(p: SharePayload): string[] {
  const { warnings, errors, infos, messages } = p.findings;
  if (!warnings && !errors && !infos) return ['Findings: none.'];
  const counts = [
    errors && plural(errors, 'error'),
    warnings && plural(warnings, 'warning'),
    infos && plural(infos, 'note'),
  ]
    .filter(Boolean)
    .join(', ');
  return [
    messages
      ? `Findings: ${counts}, with their texts (they may name refs and files).`
      : `Findings: ${counts} (counts only, not their texts).`,
  ];
}
function simulationLine(p: SharePayload): string {
  if (p.simulation === null || p.simulation === undefined) return 'Simulation results: none.';
  const s = sanitizeSimulation(p.simulation, true);
  const labels = s.labels.filter((l) => l !== REMOVED);
  const removed = s.labels.length - labels.length;
  return `Simulation results: ${plural(s.numbers, 'number')}${
    labels.length
      ? `, ${plural(labels.length, 'label')} (${labels
          .slice(0, 8)
          .map((l) => JSON.stringify(l))
          .join(', ')}${labels.length > 8 ? ', …' : ''})`
      : ''
  }${removed ? `; ${plural(removed, 'text value')} removed because ${removed === 1 ? 'it looks' : 'they look'} like a name or id` : ''}.`;
}
function namesLine(p: SharePayload): string {
  if (!p.withNames) return 'Ref names: none.';
  return `Ref names: real namespace names and ${plural(p.examples.length, 'example ref name')}${p.examples.length ? `: ${p.examples.slice(0, 5).map(displayName).join(', ')}${p.examples.length > 5 ? ', …' : ''}` : ''}.`;
}
function baseOmits(p: SharePayload): string[] {
  const o = [
    'object ids (no hashes of any length)',
    'table file names and paths',
    'reflog contents (names, e-mail addresses, messages, dates)',
    'block contents',
  ];
  if (!p.withNames) o.unshift('ref names (none beyond the namespace)', 'remote names', 'finding texts');
  return o;
}
