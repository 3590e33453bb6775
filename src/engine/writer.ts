export * from './reftable/writer.ts';
