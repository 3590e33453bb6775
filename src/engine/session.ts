export * from './session/index.ts';
