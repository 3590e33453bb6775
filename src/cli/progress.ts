/**
 * Progress on standard error for the steps that take long (tables read, records merged,
 * operations simulated): one line redrawn in place, shown only once a step has run for a second,
 * and only when standard error is a terminal. Nothing at all is written otherwise, so pipes,
 * files and `2>&1` captures never see a progress line. `REFSCOPE_PROGRESS=0` turns it off.
 * Progress is for people, never part of a result: nothing here changes what is printed on stdout.
 */
import type { InputFile } from '../engine/basics.ts';

/** A step shows progress once it has run this long (ms); `REFSCOPE_PROGRESS_AFTER_MS` changes it (tests). */
export const PROGRESS_AFTER_MS = /^[0-9]+$/.test(process.env.REFSCOPE_PROGRESS_AFTER_MS ?? '')
  ? Number(process.env.REFSCOPE_PROGRESS_AFTER_MS)
  : 1000;
/** Redraw at most this often (ms). */
const REDRAW_MS = 100;

export class Progress {
  private stepStart = Date.now();
  private lastDraw = 0;
  private drawn = false;
  constructor(
    private readonly stream: NodeJS.WriteStream = process.stderr,
    readonly enabled: boolean = stream.isTTY === true && process.env.REFSCOPE_PROGRESS !== '0',
  ) {}

  /** A new step starts: its line shows once it has run for `PROGRESS_AFTER_MS`. */
  step(): void {
    this.stepStart = Date.now();
  }

  /** The current state of the step, e.g. "reading tables: 3 of 10". Cheap when disabled. */
  update(text: () => string, force = false): void {
    if (!this.enabled) return;
    const now = Date.now();
    if (now - this.stepStart < PROGRESS_AFTER_MS) return;
    if (!force && now - this.lastDraw < REDRAW_MS) return;
    this.lastDraw = now;
    const cols = this.stream.columns || 80;
    this.stream.write(`\r\x1b[2K${text().slice(0, cols - 1)}`);
    this.drawn = true;
  }

  /** Clear the line (before the result is printed). */
  done(): void {
    if (this.drawn) this.stream.write('\r\x1b[2K');
    this.drawn = false;
  }
}

const fmt = (n: number): string => n.toLocaleString('en-US');
const mib = (b: number): string => `${(b / 2 ** 20).toFixed(1)} MiB`;

/**
 * The input files with their first read counted (a table is "being read" from then on), and the
 * engine's byte callback: together they drive "reading tables: 3 of 10 (12.0 of 40.4 MiB)" and,
 * once every byte is parsed, "merging the records of 10 tables".
 */
export function watchTables(files: InputFile[], p: Progress): { files: InputFile[]; onBytes: (bytes: number) => void } {
  p.step();
  if (!p.enabled) return { files, onBytes: () => {} };
  const tables = files.filter((f) => f.path.endsWith('.ref'));
  const total = (tables.length ? tables : files).reduce((s, f) => s + f.source.size, 0);
  const started = new Set<string>();
  let bytes = 0;
  const line = (): string =>
    bytes >= total && total > 0
      ? `merging the records of ${fmt(tables.length)} table${tables.length === 1 ? '' : 's'} (${mib(total)})…`
      : tables.length
        ? `reading tables: ${fmt(Math.max(1, started.size))} of ${fmt(tables.length)} (${mib(bytes)} of ${mib(total)})`
        : `reading refs: ${mib(bytes)} of ${mib(total)}`;
  const watched = files.map((f): InputFile => {
    if (!f.path.endsWith('.ref')) return f;
    const src = f.source;
    return {
      path: f.path,
      source: {
        size: src.size,
        read: (o: number, l: number) => {
          if (!started.has(f.path)) {
            started.add(f.path);
            p.update(line);
          }
          return src.read(o, l);
        },
      },
    };
  });
  return {
    files: watched,
    onBytes: (b: number) => {
      bytes = b;
      p.update(line, b >= total);
    },
  };
}
