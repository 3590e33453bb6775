/**
 * The refscope CLI run in the test's own process (`src/cli/main.ts main`, what bin/refscope.mjs
 * calls), as `node bin/refscope.mjs …` would run it without paying a Node start per call; and
 * environment variables set for the length of one call. Each command keeps at least one true
 * subprocess test elsewhere (test/cli-options.test.ts, test/package.test.ts).
 */
import { main as cliMain } from '../../src/cli/main.ts';

/** What `refscope <argv>` did: exit code, stdout as a byte string (latin1), stderr. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

let cliBusy: Promise<unknown> = Promise.resolve();
/**
 * Run the refscope CLI in this process (`src/cli/main.ts main`, what bin/refscope.mjs calls),
 * capturing stdout and stderr. Calls are serialised: the capture swaps process.stdout.write.
 */
export function refscope(argv: string[]): Promise<CliResult> {
  const go = async (): Promise<CliResult> => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const ow = process.stdout.write;
    const ew = process.stderr.write;
    const capture = (sink: Buffer[]) =>
      ((chunk: string | Uint8Array, enc?: unknown, cb?: unknown) => {
        sink.push(
          typeof chunk === 'string'
            ? Buffer.from(chunk, typeof enc === 'string' ? (enc as BufferEncoding) : 'utf8')
            : Buffer.from(chunk),
        );
        const done = typeof enc === 'function' ? enc : cb;
        if (typeof done === 'function') queueMicrotask(() => (done as (e?: Error | null) => void)(null));
        return true;
      }) as typeof process.stdout.write;
    process.stdout.write = capture(out);
    process.stderr.write = capture(err);
    try {
      const code = await cliMain(argv);
      return { code, stdout: Buffer.concat(out).toString('latin1'), stderr: Buffer.concat(err).toString() };
    } finally {
      process.stdout.write = ow;
      process.stderr.write = ew;
    }
  };
  const p = cliBusy.then(go, go);
  cliBusy = p.catch(() => undefined);
  return p;
}

/** Run `fn` with the environment variables `vars` set (undefined: unset), then restore them. */
export async function withEnv<T>(vars: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const set = (v: Record<string, string | undefined>) => {
    for (const [k, x] of Object.entries(v)) {
      if (x === undefined) delete process.env[k];
      else process.env[k] = x;
    }
  };
  set(vars);
  try {
    return await fn();
  } finally {
    set(saved);
  }
}
