export * from './reftable/table.ts';
