export * from './reftable/seek.ts';
