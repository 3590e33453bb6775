/**
 * The registration point of the CLI's commands: one line per command. A command is one module,
 * `src/cli/<name>-cmd.ts`, exporting a `CommandSpec` (common.ts: usage, options, JSON schema and
 * `run`); it is loaded only when it runs (or for `--help`), so `refscope refs` never loads the
 * simulator.
 */
import type { CommandSpec } from './common.ts';

export interface CommandEntry {
  name: string;
  /** One line for `refscope --help` (the command's own `--help` says more). */
  summary: string;
  load(): Promise<CommandSpec>;
}

export const COMMANDS: CommandEntry[] = [
  {
    name: 'refs',
    summary: 'live refs, one "<object id> <refname>" per line (as git for-each-ref)',
    load: async () => (await import('./refs-cmd.ts')).refsCommand,
  },
  {
    name: 'analyze',
    summary: 'report on a reftable stack, packed-refs file or .git directory',
    load: async () => (await import('./analyze-cmd.ts')).analyzeCommand,
  },
  {
    name: 'show',
    summary: "a ref's history: its record in every table, newest first, which one wins, its reflog",
    load: async () => (await import('./show-cmd.ts')).showCommand,
  },
  {
    name: 'diff',
    summary: 'what changed between two snapshots: tables merged, records dropped, refs changed',
    load: async () => (await import('./diff-cmd.ts')).diffCommand,
  },
  {
    name: 'watch',
    summary: 'follow a live stack: one event per new tables.list state, compactions, locks, alerts',
    load: async () => (await import('./watch-cmd.ts')).watchCommand,
  },
  {
    name: 'compact',
    summary: 'write the stack after git pack-refs (--all) or git pack-refs --auto',
    load: async () => (await import('./compact-cmd.ts')).compactCommand,
  },
  {
    name: 'convert',
    summary: 'packed-refs or a files-backend .git into a one-table reftable stack',
    load: async () => (await import('./compact-cmd.ts')).convertCommand,
  },
  {
    name: 'simulate',
    summary: "replay ref updates or lookups: git's work and time per version, what would fix it",
    load: async () => (await import('./simulate-cmd.ts')).simulateCommand,
  },
  {
    name: 'share',
    summary: "print a link carrying the report's shape (no names unless --with-names)",
    load: async () => (await import('./share-cmd.ts')).shareCommand,
  },
  {
    name: 'export',
    summary: 'the report as JSON or Markdown, or a script rebuilding its shape with git',
    load: async () => (await import('./share-cmd.ts')).exportCommand,
  },
  {
    name: 'scan',
    summary: 'every repository under the roots, one row each (Parquet or JSON Lines), on N threads',
    load: async () => (await import('./scan-cmd.ts')).scanCommand,
  },
  {
    name: 'calibrate',
    summary: "compare a measure-script result with the prediction and fit this machine's factor",
    load: async () => (await import('./calibrate-cmd.ts')).calibrateCommand,
  },
  {
    name: 'serve',
    summary: 'serve the web app from the package on 127.0.0.1 and print its URL',
    load: async () => (await import('./serve-cmd.ts')).serveCommand,
  },
];
