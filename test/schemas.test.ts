/**
 * Every command's `--json` output on every fixture of test/fixtures validates against its shipped
 * JSON Schema (schemas/*.schema.json, draft 2020-12, checked with ajv), and the schema files are
 * what scripts/make-schemas.mjs writes. The CLI runs in this process (main), its stdout captured.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { refscope, withEnv } from './lib/cli.ts';

const ROOT = path.join(__dirname, '..');
const FX = path.join(ROOT, 'test/fixtures');
const SCHEMAS = path.join(ROOT, 'schemas');

/** Every fixture: [name, path, kind]. */
const fixtures: [string, string, 'reftable' | 'files'][] = [
  ...fs
    .readdirSync(path.join(FX, 'reftable'))
    .sort()
    .map((n): [string, string, 'reftable'] => [`reftable/${n}`, path.join(FX, 'reftable', n, 'reftable'), 'reftable']),
  ...fs
    .readdirSync(path.join(FX, 'packed-refs'))
    .sort()
    .map((n): [string, string, 'files'] => [
      `packed-refs/${n}`,
      path.join(FX, 'packed-refs', n, 'packed-refs'),
      'files',
    ]),
  ...fs
    .readdirSync(path.join(FX, 'files'))
    .sort()
    .map((n): [string, string, 'files'] => [`files/${n}`, path.join(FX, 'files', n), 'files']),
];

const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, strictRequired: false });
for (const f of fs.readdirSync(SCHEMAS)) ajv.addSchema(JSON.parse(fs.readFileSync(path.join(SCHEMAS, f), 'utf8')));
const validate = (schema: string, doc: unknown): string[] => {
  const v = ajv.getSchema(`https://refscope.invalid/schemas/${schema}.schema.json`)!;
  expect(v).toBeTypeOf('function');
  return v(doc) ? [] : (v.errors ?? []).map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
};

/** Run the CLI in this process; stdout and stderr captured. */
async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const r = await refscope(argv);
  return { code: r.code, out: r.stdout, err: r.stderr };
}

/** Run, expect exit 0, parse the one JSON document, validate it; returns it. */
async function checked(schema: string, ...argv: string[]): Promise<Record<string, unknown>> {
  const r = await cli(...argv);
  expect(r.err, argv.join(' ')).toBe('');
  expect(r.code, argv.join(' ')).toBe(0);
  const doc = JSON.parse(r.out) as Record<string, unknown>;
  expect(doc.schema).toBe(`refscope.${schema}/1`);
  expect(validate(schema, doc), `${argv.join(' ')} against schemas/${schema}.schema.json`).toEqual([]);
  return doc;
}

let tmp = '';
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'refscope-schemas-'));
});
afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('schemas/', () => {
  it('are what scripts/make-schemas.mjs writes, and every property is described', () => {
    const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts/make-schemas.mjs'), '--check'], {
      encoding: 'utf8',
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const undocumented: string[] = [];
    const walk = (s: unknown, at: string): void => {
      if (!s || typeof s !== 'object') return;
      const o = s as Record<string, unknown>;
      if (o.properties) {
        for (const [k, v] of Object.entries(o.properties as Record<string, Record<string, unknown>>)) {
          if (typeof v.description !== 'string' || !v.description) undocumented.push(`${at}.${k}`);
          walk(v, `${at}.${k}`);
        }
      }
      if (o.items) walk(o.items, `${at}[]`);
    };
    for (const f of fs.readdirSync(SCHEMAS)) walk(JSON.parse(fs.readFileSync(path.join(SCHEMAS, f), 'utf8')), f);
    expect(undocumented).toEqual([]);
  });

  it('reject a document that breaks them (the validator is not vacuous)', async () => {
    const doc = await checked('report', 'analyze', '--json', fixtures[0][1]);
    const broken = structuredClone(doc) as { stack: { live: unknown } };
    broken.stack.live = 'many';
    expect(validate('report', broken).length).toBeGreaterThan(0);
    const { diagnosis: _, ...missing } = doc;
    expect(validate('report', missing).length).toBeGreaterThan(0);
  });
});

describe.each(fixtures)('--json on %s', (name, p, kind) => {
  it('refs, analyze, share, export (json and md)', async () => {
    const refs = await checked('refs', 'refs', '--json', p);
    expect((refs.refs as unknown[]).length).toBe(refs.count);
    const report = await checked('report', 'analyze', '--json', p);
    expect(report.input).toEqual(refs.input);
    // --base: no probe for a running `refscope serve`.
    const link = await checked('link', 'share', '--json', '--base', 'http://127.0.0.1:9/', p);
    expect(String(link.link).startsWith('http://127.0.0.1:9/#s=')).toBe(true);
    expect(link.baseFrom).toBe('option');
    const exp = await checked('export', 'export', '--json', p);
    expect(exp.report).toEqual(report);
    // The Markdown export and the export of a link are the same schema with other fields set; on
    // tombstones-50k (5.6 MB, about 4 CPU s a report) they would only repeat that report twice
    // more, so they run on every other fixture.
    if (name === 'reftable/tombstones-50k') return;
    const md = await checked('export', 'export', '--json', '--format', 'md', p);
    expect(typeof md.text).toBe('string');
    const fromLink = await checked('export', 'export', '--json', String(link.link));
    expect(fromLink.from).toBe('link');
  });

  it('simulate (every model, fixes and curve)', async () => {
    const sim = await checked(
      'simulation',
      'simulate',
      '--json',
      '--workload',
      'create:20:refs/heads/schema-check/',
      p,
    );
    expect((sim.results as unknown[]).length).toBe(5);
  });

  it(kind === 'reftable' ? 'compact --all and --auto' : 'convert', async () => {
    if (kind === 'reftable') {
      const all = await checked('compact', 'compact', '--json', '--out', path.join(tmp, name, 'all'), p);
      expect(all.mode).toBe('all');
      const auto = await checked('compact', 'compact', '--json', '--auto', '--out', path.join(tmp, name, 'auto'), p);
      expect(auto.mode).toBe('auto');
      expect(fs.readdirSync(String(auto.out)).sort()).toEqual(
        (auto.files as { name: string }[]).map((f) => f.name).sort(),
      );
    } else {
      const c = await checked('convert', 'convert', '--json', '--out', path.join(tmp, name, 'conv'), p);
      expect(fs.readdirSync(String(c.out)).sort()).toEqual((c.files as { name: string }[]).map((f) => f.name).sort());
    }
  });
});

describe('--json on serve', () => {
  it('refscope.serve/1 once it listens, then it stops at --budget', async () => {
    const app = path.join(tmp, 'app');
    fs.mkdirSync(app, { recursive: true });
    fs.writeFileSync(path.join(app, 'index.html'), '<!doctype html><title>t</title>');
    await withEnv({ REFSCOPE_APP_DIR: app, REFSCOPE_STATE_DIR: path.join(tmp, 'state') }, async () => {
      const doc = await checked('serve', 'serve', '--json', '--port', '0', '--budget', '1');
      expect(doc.root).toBe(app);
      // Stopped: its state file is gone.
      expect(fs.existsSync(path.join(tmp, 'state', 'serve.json'))).toBe(false);
    });
  });
});
