export * from './reftable/auto-compaction.ts';
