#!/usr/bin/env node
// The refscope command line tool. Runs the TypeScript engine through tsx, so a checkout works
// right after `npm ci` with no build step.
import { register } from 'tsx/esm/api';
register();
// A reader that goes away (`refscope refs … | head -1`) ends the output quietly, as SIGPIPE ends
// git: exit 141, no stack trace.
process.stdout.on('error', (e) => { if (e.code === 'EPIPE') process.exit(141); throw e; });
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
