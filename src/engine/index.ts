/**
 * The engine's public surface: what the CLI, the worker and the tests import.
 * Importing this module registers the optional parts (files backend, compaction, diagnosis)
 * with `analyze` and `report`.
 */
export * from './basics.ts';
export * from './table.ts';
export * from './stack.ts';
export * from './refs.ts';
export * from './input.ts';
export * from './analyze.ts';
export * from './report.ts';
export * from './lookup.ts';
export * from './logs.ts';
import './extensions.ts';
