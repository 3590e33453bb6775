export * from './reftable/stack.ts';
export * from './reftable/merged.ts';
