#!/usr/bin/env node
// Runs a TypeScript entry point through tsx (no build step): node bin/run-ts.mjs <file.ts> [args]
import { register } from 'tsx/esm/api';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
register();
const [, , entry, ...rest] = process.argv;
process.argv = [process.argv[0], entry, ...rest];
await import(pathToFileURL(path.resolve(entry)).href);
