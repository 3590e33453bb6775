/**
 * The engine's public surface: what the CLI, the worker and the tests import.
 * Nothing here registers anything: `analyzeFiles` and `buildReport` call the files backend, the
 * compaction section and the diagnosis directly.
 */
export * from './basics.ts';
export * from './reftable/table.ts';
export * from './reftable/stack.ts';
export * from './reftable/merged.ts';
export * from './refs.ts';
export * from './input.ts';
export * from './analyze.ts';
export * from './report.ts';
export * from './reftable/seek.ts';
export * from './logs.ts';
export { checkRefnameFormat } from './files/refname.ts';
