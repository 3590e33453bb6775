export * from './share/index.ts';
