/**
 * The shipped JSON Schemas (schemas/*.schema.json, draft 2020-12) loaded into ajv, for tests that
 * validate a command's `--json` document.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';

const SCHEMAS = path.join(__dirname, '..', '..', 'schemas');
const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, strictRequired: false });
for (const f of fs.readdirSync(SCHEMAS)) ajv.addSchema(JSON.parse(fs.readFileSync(path.join(SCHEMAS, f), 'utf8')));

/** Where `doc` breaks `schemas/<schema>.schema.json` (empty: it validates). */
export function schemaErrors(schema: string, doc: unknown): string[] {
  const v = ajv.getSchema(`https://refscope.invalid/schemas/${schema}.schema.json`);
  if (!v) return [`no schema ${schema}`];
  return v(doc) ? [] : (v.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}
