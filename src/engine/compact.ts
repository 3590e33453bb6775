export * from './reftable/compact.ts';
