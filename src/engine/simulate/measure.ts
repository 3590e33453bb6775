/**
 * measure: "measure with your git". `measureScript` writes a bash script that, on the user's
 * machine, copies the repository's ref store into a throw-away bare repository (objects shared
 * through `objects/info/alternates`, read only), runs the workload with the user's git under
 * `GIT_TRACE2_EVENT` before and after `git pack-refs --all` on fresh copies, and writes one JSON
 * file (`refscope.measure/1`). `readMeasureFile` and `compareMeasure` read that file back (CLI
 * `refscope calibrate <file>`, the Simulator view's drop zone): predicted against measured,
 * per phase from the trace's events, and the machine's factor (measured CPU ÷ predicted).
 *
 * Trace2 (Documentation/technical/api-trace2.adoc, "Event format"): every event has `time`
 * (UTC, microseconds); `start`, `exit` and `atexit` carry `t_abs` (seconds since the process
 * started); `region_leave` carries `t_rel` (seconds in the region); `counter` events carry a
 * category, name and count. A process's phases: *start-up* (exec, repository discovery, config:
 * until `cmd_name`), *command* (`cmd_name` to `exit`: parse, prepare, commit), and any regions
 * the build defines. Times in the trace are wall seconds; CPU seconds come from bash's `time`.
 */
import type { ModelName } from './models.ts';
import type { RefUpdate, Workload } from './workload.ts';
import { COST_PARTS, type CostPart } from './constants.ts';

export const MEASURE_SCHEMA = 'refscope.measure/1';

/** What refscope predicted when it wrote the script (embedded in the script and copied into the result). */
export interface MeasurePrediction {
  model: ModelName;
  /** The `git --version` line the user gave, if any. */
  gitVersion: string | null;
  /** Estimated CPU seconds of one `update-ref --stdin` run on the ref store as it is. */
  before: { seconds: number; parts: Partial<Record<CostPart, number>> };
  /** The same after `git pack-refs --all` (null when the model did not compute it). */
  after: { seconds: number; parts: Partial<Record<CostPart, number>> } | null;
  /** Seconds of process start in the model (the start-up phase's prediction). */
  startup: number;
}

/** Options of `measureScript`. */
export interface MeasureScriptOptions {
  workload: Workload;
  prediction: MeasurePrediction;
  /** What the input was (a comment line). */
  source: string;
  generator: string;
  /** Runs per phase (default 3). */
  repeats?: number;
  /** Date for the header (default now). */
  date?: string;
  /**
   * The workload's new object ids are refscope's made-up ones (`create:<n>:<prefix>`): the script
   * points the creates at the repository's own commits instead (`git rev-list --all`, each once
   * while there are enough), so that git's object check finds them.
   */
  ownObjects?: boolean;
}

/** Thrown when a workload cannot be written into a script safely. */
export class MeasureScriptError extends Error {}

const SAFE_ARG = /^[\x21-\x7e]+$/;

/** One update as a `git update-ref --stdin` text line (names and values checked safe for the heredoc). */
function updateLine(u: RefUpdate, placeholder: boolean): string {
  const check = (s: string, what: string) => {
    if (!SAFE_ARG.test(s) || s.includes('"') || s.includes('\\'))
      throw new MeasureScriptError(
        `cannot write ${what} ${JSON.stringify(s)} into a measure script: only printable ASCII without quotes or backslashes`,
      );
    return s;
  };
  const ref = check(u.ref, 'ref name');
  const nv = u.newValue;
  const ov = u.oldValue;
  const old =
    ov === null
      ? ''
      : ov.kind === 'zero'
        ? ' ' + '0'.repeat(40)
        : ov.kind === 'oid'
          ? ' ' + check(ov.oid, 'object id')
          : '';
  switch (u.op) {
    case 'create':
      return `create ${ref} ${placeholder ? '@OID@' : check(nv && nv.kind === 'oid' ? nv.oid : '', 'object id')}`;
    case 'update':
      return `update ${ref} ${nv && nv.kind === 'oid' ? check(nv.oid, 'object id') : '0'.repeat(40)}${old}`;
    case 'delete':
      return `delete ${ref}${old}`;
    case 'verify':
      return `verify ${ref}${old}`;
    default:
      throw new MeasureScriptError(
        `cannot write ${u.op} into a measure script (ref ${JSON.stringify(u.ref)}): only create, update, delete and verify`,
      );
  }
}

/** The workload as `update-ref --stdin` text (one transaction, or start/commit around each). */
export function workloadStdin(w: Workload, placeholder = false): string {
  if (w.kind !== 'updates')
    throw new MeasureScriptError(
      `a measure script runs ref updates (git update-ref --stdin); this workload is ${w.kind}`,
    );
  const lines: string[] = [];
  const single = w.transactions.length === 1 && w.transactions[0].end === 'commit';
  for (const t of w.transactions) {
    if (!single) lines.push('start');
    for (const u of t.updates) lines.push(updateLine(u, placeholder));
    if (!single) lines.push(t.end === 'commit' ? 'commit' : 'abort');
  }
  return lines.map((l) => l + '\n').join('');
}

/** A value for a `# …` comment line: printable, one line. */
function comment(s: string): string {
  return s.replace(/[^\x20-\x7e]/g, '?');
}

/**
 * The bash script. Everything variable is either a quoted heredoc (no expansion: the workload,
 * the prediction) or a comment sanitised to printable ASCII; paths come from the command line and
 * are used only inside double quotes.
 */
export function measureScript(o: MeasureScriptOptions): string {
  const stdin = workloadStdin(o.workload, o.ownObjects === true);
  const creates = (stdin.match(/@OID@/g) ?? []).length;
  const pred = JSON.stringify({ ...o.prediction, workload: o.workload.description, generator: o.generator });
  if (pred.includes('\nREFSCOPE_')) throw new MeasureScriptError('prediction text collides with the heredoc delimiter');
  const repeats = Math.max(1, Math.min(20, Math.floor(o.repeats ?? 3)));
  const date = o.date ?? new Date().toISOString();
  return `#!/usr/bin/env bash
# refscope measure script: ${comment(o.workload.description)}
# Generated by ${comment(o.generator)} on ${comment(date)} from ${comment(o.source)}.
#
# What it does (nothing else):
#   1. makes a throw-away bare repository in a new temporary directory (mktemp -d) and copies
#      the ref store of the repository you name into it (reftable/ or refs/ + packed-refs);
#      the objects are shared through objects/info/alternates and only read, never modified;
#   2. runs the workload below with your git (git update-ref --stdin) on that copy, timed
#      (bash's time: CPU seconds) and traced (GIT_TRACE2_EVENT), ${repeats} times on fresh copies;
#   3. the same after "git pack-refs --all" on a fresh copy;
#   4. writes one JSON file (default refscope-measure.json in the current directory) and
#      removes the temporary directory.
# Your repository is never written to. Nothing is uploaded: drop the JSON file onto refscope's
# Simulator page or run "refscope calibrate <file>"; both read it on your machine.
#
# Usage: bash <this script> [<repository>] [<output.json>]     (GIT=/path/to/git to choose a git)
set -euo pipefail
repo=\${1:-.}
out=\${2:-refscope-measure.json}
git=\${GIT:-git}
repeats=${repeats}
common=$("$git" -C "$repo" rev-parse --path-format=absolute --git-common-dir)
fmt=$("$git" -C "$repo" rev-parse --show-ref-format 2>/dev/null || echo files)
bare=$("$git" -C "$repo" rev-parse --is-bare-repository)
logall=$("$git" -C "$repo" config --get core.logAllRefUpdates || true)
if [ -z "$logall" ]; then if [ "$bare" = true ]; then logall=false; else logall=true; fi; fi
tmp=$(mktemp -d "\${TMPDIR:-/tmp}/refscope-measure.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/workload.txt" <<'REFSCOPE_WORKLOAD'
${stdin}REFSCOPE_WORKLOAD
cat >"$tmp/prediction.json" <<'REFSCOPE_PREDICTION'
${pred}
REFSCOPE_PREDICTION

${
  creates
    ? `# The creates point at this repository's own commits (refscope's workload had made-up ids).
"$git" -C "$repo" rev-list --all --max-count=${creates} >"$tmp/oids"
if [ ! -s "$tmp/oids" ]; then echo "refscope: $repo has no commits to point the ${creates} created refs at" >&2; exit 1; fi
awk 'NR == FNR { o[n++] = $0; next } /@OID@/ { sub(/@OID@/, o[k++ % n]) } { print }' "$tmp/oids" "$tmp/workload.txt" >"$tmp/workload.new"
mv "$tmp/workload.new" "$tmp/workload.txt"
`
    : ''
}# A fresh copy of the ref store in $1 (a new directory).
copy() {
  "$git" init -q --bare --ref-format="$fmt" "$1"
  rm -rf "$1/refs" "$1/reftable" "$1/packed-refs"
  for f in refs reftable packed-refs HEAD; do
    if [ -e "$common/$f" ]; then cp -R "$common/$f" "$1/$f"; fi
  done
  mkdir -p "$1/refs"
  printf '%s\\n' "$common/objects" >"$1/objects/info/alternates"
  "$git" -C "$1" config core.logAllRefUpdates "$logall"
  "$git" -C "$1" config gc.auto 0
}

# One timed, traced run: $1 phase, $2 repeat, $3 copy, then the git command.
runs=()
timed() {
  local phase=$1 rep=$2 dir=$3
  shift 3
  local trace="$tmp/trace-$phase-$rep.json" t code=0
  : >"$trace"
  TIMEFORMAT='%3U %3S %3R'
  t=$( { time GIT_TRACE2_EVENT="$trace" "$git" -C "$dir" "$@" <"$tmp/workload.txt" >/dev/null 2>"$tmp/stderr"; } 2>&1 ) || code=$?
  if [ "$code" != 0 ]; then t=$(tail -n 1 <<<"$t"); fi
  read -r user sys real <<<"$t"
  local events
  events=$(grep -E '"event":"(version|start|cmd_name|exit|atexit|region_enter|region_leave|counter|timer|th_timer|th_counter)"' "$trace" | paste -sd, - || true)
  local err
  err=$(head -c 300 "$tmp/stderr" | tr -d '\\000-\\037"\\\\')
  runs+=("{\\"phase\\":\\"$phase\\",\\"repeat\\":$rep,\\"command\\":\\"$1\\",\\"exitCode\\":$code,\\"user\\":$user,\\"sys\\":$sys,\\"wall\\":$real,\\"stderr\\":\\"$err\\",\\"trace\\":[$events]}")
}

for ((i = 1; i <= repeats; i++)); do
  copy "$tmp/before-$i"
  timed before "$i" "$tmp/before-$i" update-ref --stdin
  copy "$tmp/after-$i"
  timed pack-refs "$i" "$tmp/after-$i" pack-refs --all
  timed after "$i" "$tmp/after-$i" update-ref --stdin
done

version=$("$git" --version | tr -d '\\000-\\037"\\\\')
{
  printf '{"schema":"${MEASURE_SCHEMA}","git":"%s","refFormat":"%s","logAllRefUpdates":"%s","os":"%s","nproc":"%s",' \\
    "$version" "$fmt" "$logall" "$(uname -sm | tr -d '\\000-\\037"\\\\')" "$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo)"
  printf '"prediction":%s,"runs":[' "$(cat "$tmp/prediction.json")"
  (IFS=,; printf '%s' "\${runs[*]}")
  printf ']}\\n'
} >"$out"
echo "refscope: wrote $out ($repeats runs before and after pack-refs with $version)" >&2
`;
}

/** One run of the measure file. */
export interface MeasureRun {
  phase: 'before' | 'after' | 'pack-refs';
  repeat: number;
  command: string;
  exitCode: number;
  user: number;
  sys: number;
  wall: number;
  stderr: string;
  trace: Record<string, unknown>[];
}

/** The measure file. */
export interface MeasureFile {
  schema: typeof MEASURE_SCHEMA;
  git: string;
  refFormat: string;
  logAllRefUpdates: string;
  os: string;
  nproc: string;
  prediction: MeasurePrediction & { workload: string; generator: string };
  runs: MeasureRun[];
}

/** Thrown for a file that is not a measure file: names the file, offset, what was expected. */
export class MeasureFileError extends Error {
  constructor(
    readonly file: string,
    readonly offset: number,
    readonly expected: string,
  ) {
    super(`${file}: offset ${offset}: expected ${expected}`);
  }
}

/** Parse and check a measure file (text). */
export function readMeasureFile(text: string, file = 'measure file'): MeasureFile {
  let d: unknown;
  try {
    d = JSON.parse(text);
  } catch (e) {
    const m = /position (\d+)/.exec(String((e as Error).message));
    throw new MeasureFileError(
      file,
      m ? Number(m[1]) : 0,
      `JSON written by a refscope measure script (${(e as Error).message})`,
    );
  }
  const o = d as Partial<MeasureFile>;
  if (!o || typeof o !== 'object' || o.schema !== MEASURE_SCHEMA) {
    throw new MeasureFileError(
      file,
      0,
      `"schema": "${MEASURE_SCHEMA}" (a file written by refscope's measure script), found ${JSON.stringify((o as { schema?: unknown })?.schema ?? null)}`,
    );
  }
  if (!Array.isArray(o.runs) || !o.prediction || typeof o.prediction.before?.seconds !== 'number') {
    throw new MeasureFileError(file, 0, 'runs[] and prediction.before.seconds');
  }
  for (const [i, r] of o.runs.entries()) {
    if (!r || typeof r.user !== 'number' || typeof r.sys !== 'number' || !Array.isArray(r.trace)) {
      throw new MeasureFileError(file, 0, `runs[${i}] with user, sys (numbers) and trace (events)`);
    }
  }
  return o as MeasureFile;
}

/** Phases of one run, from its trace (wall seconds). */
export interface TracePhases {
  /** exec, repository discovery, config: from process start to `cmd_name`. */
  startup: number | null;
  /** `cmd_name` to `exit`. */
  command: number | null;
  /** `t_abs` of `exit`. */
  total: number | null;
  /** Regions: `category/label` → seconds (sum of `t_rel` over `region_leave`). */
  regions: Record<string, number>;
  /** Counters: `category/name` → count. */
  counters: Record<string, number>;
}

/** The top-level process's events (a child's `sid` has its parent's as a prefix, then `/`). */
function topLevel(trace: Record<string, unknown>[]): Record<string, unknown>[] {
  const sids = trace.map((e) => String(e.sid ?? ''));
  const root = sids.filter((s) => s && !s.includes('/'))[0] ?? sids[0];
  return trace.filter((e) => String(e.sid ?? '') === root);
}

const usec = (t: unknown): number | null => {
  if (typeof t !== 'string') return null;
  const m = /T(\d\d):(\d\d):(\d\d)(?:\.(\d+))?Z$/.exec(t);
  if (!m) return null;
  const day = Date.parse(t.slice(0, 10) + 'T00:00:00Z') / 1000;
  return day + Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]) + Number(`0.${m[4] ?? '0'}`);
};

/** The phases of one run from its trace2 events. */
export function tracePhases(trace: Record<string, unknown>[]): TracePhases {
  const ev = topLevel(trace);
  const find = (name: string) => ev.find((e) => e.event === name);
  const start = find('start');
  const cmd = find('cmd_name');
  const exit = find('exit');
  const tStart = usec(start?.time);
  const tCmd = usec(cmd?.time);
  const tExit = usec(exit?.time);
  const startAbs = typeof start?.t_abs === 'number' ? start.t_abs : null;
  const startup = startAbs !== null && tStart !== null && tCmd !== null ? startAbs + (tCmd - tStart) : null;
  const command = tCmd !== null && tExit !== null ? tExit - tCmd : null;
  const total = typeof exit?.t_abs === 'number' ? exit.t_abs : null;
  const regions: Record<string, number> = {};
  const counters: Record<string, number> = {};
  for (const e of trace) {
    if (e.event === 'region_leave' && typeof e.t_rel === 'number') {
      const k = `${e.category ?? ''}/${e.label ?? ''}`;
      regions[k] = (regions[k] ?? 0) + e.t_rel;
    } else if ((e.event === 'counter' || e.event === 'th_counter') && typeof e.count === 'number') {
      const k = `${e.category ?? ''}/${e.name ?? ''}`;
      counters[k] = (counters[k] ?? 0) + e.count;
    }
  }
  return { startup, command, total, regions, counters };
}

const median = (xs: number[]): number | null => {
  const a = xs.filter((x) => Number.isFinite(x)).sort((x, y) => x - y);
  if (!a.length) return null;
  const m = a.length >> 1;
  return a.length % 2 ? a[m] : (a[m - 1] + a[m]) / 2;
};

/** Predicted against measured, for one phase of the comparison. */
export interface CompareRow {
  what: string;
  /** refscope's estimate (CPU seconds, this machine's factor not applied). */
  predicted: number | null;
  /** Measured: CPU seconds (total) or trace wall seconds (phases), median over the runs. */
  measured: number | null;
  unit: 'cpu' | 'wall' | 'count';
}

/** What `refscope calibrate` and the Simulator view show. */
export interface MeasureComparison {
  git: string;
  model: ModelName;
  workload: string;
  runs: number;
  before: CompareRow[];
  after: CompareRow[];
  /** Measured CPU ÷ predicted, before pack-refs (median over runs). */
  factorBefore: number | null;
  factorAfter: number | null;
  /** The machine's factor: geometric mean of the two (or the one there is). */
  factor: number | null;
  /** Measured gain of pack-refs (before ÷ after CPU) and the predicted one. */
  gain: { measured: number | null; predicted: number | null };
  failures: string[];
}

/** Compare a measure file's runs with the prediction it carries. */
export function compareMeasure(m: MeasureFile): MeasureComparison {
  const failures = m.runs
    .filter((r) => r.exitCode !== 0)
    .map((r) => `${r.phase} run ${r.repeat}: ${r.command} exited ${r.exitCode}${r.stderr ? ` (${r.stderr})` : ''}`);
  const rows = (phase: 'before' | 'after'): { rows: CompareRow[]; cpu: number | null } => {
    const rs = m.runs.filter((r) => r.phase === phase && r.exitCode === 0);
    const p = phase === 'before' ? m.prediction.before : m.prediction.after;
    const tp = rs.map((r) => tracePhases(r.trace));
    const cpu = median(rs.map((r) => r.user + r.sys));
    const out: CompareRow[] = [
      { what: 'total (CPU)', predicted: p?.seconds ?? null, measured: cpu, unit: 'cpu' },
      // The two halves apart: the files backend's time is mostly sys (a lock file, a write and a
      // rename per ref), which varies with the file system and the machine's load far more than
      // user time does.
      { what: 'of which user (CPU)', predicted: null, measured: median(rs.map((r) => r.user)), unit: 'cpu' },
      {
        what: 'of which sys (CPU: kernel, file system)',
        predicted: null,
        measured: median(rs.map((r) => r.sys)),
        unit: 'cpu',
      },
      {
        what: 'process start (trace: start to cmd_name)',
        predicted: m.prediction.startup,
        measured: median(tp.map((t) => t.startup ?? NaN)),
        unit: 'wall',
      },
      {
        what: 'command (trace: cmd_name to exit)',
        predicted: p ? p.seconds - m.prediction.startup : null,
        measured: median(tp.map((t) => t.command ?? NaN)),
        unit: 'wall',
      },
      {
        what: 'total (trace: exit t_abs)',
        predicted: p?.seconds ?? null,
        measured: median(tp.map((t) => t.total ?? NaN)),
        unit: 'wall',
      },
    ];
    for (const part of COST_PARTS) {
      const v = p?.parts?.[part];
      if (v) out.push({ what: `predicted part: ${part}`, predicted: v, measured: null, unit: 'cpu' });
    }
    const regions = new Set(tp.flatMap((t) => Object.keys(t.regions)));
    for (const k of regions)
      out.push({
        what: `region ${k}`,
        predicted: null,
        measured: median(tp.map((t) => t.regions[k] ?? 0)),
        unit: 'wall',
      });
    const counters = new Set(tp.flatMap((t) => Object.keys(t.counters)));
    for (const k of counters)
      out.push({
        what: `counter ${k}`,
        predicted: null,
        measured: median(tp.map((t) => t.counters[k] ?? 0)),
        unit: 'count',
      });
    return { rows: out, cpu };
  };
  const b = rows('before');
  const a = rows('after');
  const fb = b.cpu !== null && m.prediction.before.seconds > 0 ? b.cpu / m.prediction.before.seconds : null;
  const fa =
    a.cpu !== null && m.prediction.after && m.prediction.after.seconds > 0 ? a.cpu / m.prediction.after.seconds : null;
  const factor = fb !== null && fa !== null ? Math.sqrt(fb * fa) : (fb ?? fa);
  return {
    git: m.git,
    model: m.prediction.model,
    workload: m.prediction.workload,
    runs: m.runs.filter((r) => r.phase === 'before').length,
    before: b.rows,
    after: a.rows,
    factorBefore: fb,
    factorAfter: fa,
    factor,
    gain: {
      measured: b.cpu !== null && a.cpu ? b.cpu / a.cpu : null,
      predicted: m.prediction.after ? m.prediction.before.seconds / m.prediction.after.seconds : null,
    },
    failures,
  };
}
