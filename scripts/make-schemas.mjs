#!/usr/bin/env node
// Writes schemas/*.schema.json, the JSON Schemas (draft 2020-12) of every `--json` document the
// CLI prints. The descriptions are the documentation (docs/cli.md and docs/report.md say the same
// in prose); test/schemas.test.ts validates every command's output on every fixture against them.
//
//   node scripts/make-schemas.mjs          (writes schemas/)
//   node scripts/make-schemas.mjs --check  (exit 1 when a file differs from what it would write)
//
// Documents may grow: objects where fields will be added accept properties the schema does not
// list, but every field that exists is listed, described and (where always present) required.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DRAFT = 'https://json-schema.org/draft/2020-12/schema';

const int = (description, min = 0) => ({ type: 'integer', minimum: min, description });
const num = (description) => ({ type: 'number', description });
const str = (description) => ({ type: 'string', description });
const bool = (description) => ({ type: 'boolean', description });
const nul = (s) => ({ ...s, type: [s.type, 'null'] });
const arr = (items, description) => ({ type: 'array', items, description });
/** An object whose listed fields are all required; `open`: fields may be added later. */
const obj = (properties, description, { open = true, optional = [] } = {}) => ({
  type: 'object',
  description,
  properties,
  required: Object.keys(properties).filter((k) => !optional.includes(k)),
  additionalProperties: open,
});
const counts = (description) => ({ type: 'object', description, additionalProperties: { type: 'number' } });
const doc = (name, title, description, properties, opts) => ({
  $schema: DRAFT,
  $id: `https://refscope.invalid/schemas/${name}.schema.json`,
  title,
  ...obj(properties, description, opts),
});
const schemaConst = (s) => ({
  const: s,
  description: `The document's schema and version: "${s}". The version changes only when a field changes meaning or disappears.`,
});
const generator = str('The program that wrote the document, e.g. "refscope 0.1.0".');
const input = obj(
  {
    kind: {
      enum: ['reftable', 'files', 'packed-refs'],
      description:
        'What the input is: a reftable stack or lone tables, a files-backend .git directory, or a packed-refs file.',
    },
    description: str('The input in words, e.g. "reftable stack (reftable/tables.list)".'),
  },
  'What was read.',
);
const segment = nul(
  obj(
    {
      start: int('Oldest table of the segment (index into tables[], oldest = 0).'),
      end: int('Newest table of the segment, inclusive.'),
    },
    'Tables start..end, both inclusive; null when nothing is merged.',
    { open: false },
  ),
);
segment.type = ['object', 'null'];
const refName = {
  name: str('The ref name, UTF-8 decoded (bytes that are not UTF-8 become U+FFFD).'),
  nameHex: str('Present only when the name is not valid UTF-8: its bytes in hex.'),
};

// ------------------------------------------------------------------------------------------------
// refscope.report/1

const block = obj(
  {
    offset: int('Absolute file offset of the block (0 for the first block, which shares bytes with the header).'),
    type: { enum: ['ref', 'index', 'obj', 'log'], description: "Block type: 'r' ref, 'i' index, 'o' obj, 'g' log." },
    section: {
      enum: ['ref', 'refIndex', 'obj', 'objIndex', 'log', 'logIndex'],
      description: 'Section the block belongs to.',
    },
    blockLen: int(
      'The block_len field: for the first block counted from file byte 0; for log blocks the inflated size.',
    ),
    restartCount: int('Restart points in the block (0 for log blocks, whose restarts are inside the compressed data).'),
    recordCount: int('Records in the block.'),
    padding: int('NUL bytes after the block up to the next block boundary.'),
    fileBytes: int(
      'Bytes the block occupies in the file: block_len + padding, or 4 + the compressed stream for log blocks.',
    ),
  },
  'One block, in file order.',
);
const sections = obj(
  Object.fromEntries(
    ['ref', 'refIndex', 'obj', 'objIndex', 'log', 'logIndex'].map((k) => [k, int(`Bytes of the ${k} section.`)]),
  ),
  'Bytes per section.',
);
const table = obj(
  {
    name: str('File name as listed in tables.list.'),
    fileSize: int('File size in bytes.'),
    version: {
      enum: [1, 2, null],
      description:
        'Format version: 1 (SHA-1, 24-byte header, 68-byte footer) or 2 (28/72 bytes); null when the table could not be read.',
    },
    hashId: { enum: ['sha1', 's256', null], description: 'Hash of the object ids; null when unreadable.' },
    blockSize: nul(int('Header block_size; 0 = unaligned.')),
    minUpdateIndex: nul(int('Header min_update_index.')),
    maxUpdateIndex: nul(int('Header max_update_index.')),
    blocks: arr(
      block,
      'Every block in file order; empty at a position with copyOf (the same file is listed at its first position only).',
    ),
    copyOf: int(
      'Present in memory (the library, the web app) when tables.list names the same file on an earlier line: the index of the first such position. In this JSON document such an entry is a copy entry instead (its own figures only).',
    ),
    records: obj(
      {
        ref: int('Ref records with one object id (value type 1).'),
        peeled: int('Ref records with an object id and its peeled id (value type 2).'),
        symref: int('Symref records (value type 3).'),
        tombstone: int('Deletions (value type 0).'),
        log: int('Log records that are updates.'),
        logDeletion: int('Log records that are deletions.'),
        obj: int('Obj records (object id → ref blocks).'),
        index: int('Index records of all indexes.'),
      },
      'Records by kind.',
    ),
    sectionBytes: sections,
    refIndexLevels: int('Levels of the ref index: 0 = none, 1 = one level, …'),
    shadowed: int('Records of this table whose key a newer table also has (they lose in the merged view).'),
    hiddenByTombstone: int('Of those, records a newer tombstone hides.'),
    tombstonesHiding: int('Tombstones of this table that hide at least one older record.'),
    winners: int(
      "Records of this table that are the merged view's record for their key (live refs plus winning tombstones).",
    ),
    error: nul(
      obj(
        {
          file: str('File the error is in.'),
          offset: int('Byte offset.'),
          expected: str('What was expected there, and what was found.'),
        },
        'Why the table could not be read; its figures are then zero and stack.incomplete is true.',
        { open: false },
      ),
    ),
    incomplete: arr(
      { enum: ['shadowed', 'hiddenByTombstone', 'winners', 'tombstonesHiding'] },
      'Present only when another table could not be read: the figures of this table that may be off because of it.',
    ),
  },
  'One table, oldest first (tables.list order).',
  { optional: ['incomplete', 'copyOf'] },
);
table.properties.error.type = ['object', 'null'];
// A position whose file is named on an earlier line of tables.list: only its own merge figures;
// every other field is that of `tables[copyOf]` (same file, same bytes).
const copyEntry = obj(
  {
    copyOf: int(
      "Index of the first position naming the same file in tables.list (never itself a copy); its fields (name, sizes, records, blocks, error) are this position's.",
    ),
    shadowed: table.properties.shadowed,
    hiddenByTombstone: table.properties.hiddenByTombstone,
    tombstonesHiding: table.properties.tombstonesHiding,
    winners: table.properties.winners,
    incomplete: table.properties.incomplete,
  },
  "A repeated tables.list position: the position's own merge figures; the rest is tables[copyOf]'s.",
  { open: false, optional: ['incomplete'] },
);
const tableOrCopy = {
  oneOf: [
    { ...table, not: { required: ['copyOf'] } },
    copyEntry,
    {
      type: 'integer',
      minimum: 0,
      description:
        "A further line of a run of copies: the index k of the run's first position (a copy entry), whose figures this position has too (same file, same merge figures).",
    },
  ],
  description:
    'A table (its first position in tables.list), a copy entry (a later line naming it again), or the index of the copy entry that starts its run.',
};
/** Per-table reasons as written: a text, or the index of an earlier entry (a run of copies). */
const reasonsOf = (description) =>
  arr(
    { type: ['string', 'integer'], minimum: 0 },
    `${description} An integer k in place of a text: position i is a copy of the same file as position i − 1 and its reason is entry k's (k starts the run), with this position's own numbers (its values).`,
  );

const after = nul(
  obj(
    {
      tables: int(
        'Tables in the stack afterwards (after pack-refs: 1, or 0 when tombstones cancelled every record and git lists no table).',
      ),
      bytes: int('Total file size of the stack afterwards (tables outside the segment unchanged).'),
      records: int('Ref + log records in the stack afterwards.'),
      newTableBytes: int('File size of the compacted table alone (0 when it is empty and not listed).'),
      newTableRecords: int('Records of the compacted table alone.'),
    },
    "The stack after a real compaction written by refscope with git's defaults and measured; null when skipped (afterSkipped) or, for afterAuto, when there is no segment.",
  ),
);
after.type = ['object', 'null'];
const compaction = {
  type: 'object',
  description:
    "git's auto-compaction as git pack-refs --auto would run it, and the same rule on other measures (docs/report.md, section stack.compaction). When a table could not be read only factor, segment (null), incomplete and reason are there.",
  properties: {
    factor: int("Geometric factor used (git's reftable.geometricFactor, default 2).", 2),
    segment: {
      ...segment,
      description:
        "The tables git's auto-compaction merges (compares net byte sizes); null when the sequence is already geometric, or when a table could not be read.",
    },
    bySize: obj(
      {
        values: arr({ type: 'integer' }, 'Net sizes git compares, oldest first: file size − 91 (v1) or − 99 (v2).'),
        reasons: reasonsOf('Per table: why it is in or out of the segment, with the numbers compared.'),
      },
      'The rule as git applies it, on byte sizes; its segment is `segment`.',
    ),
    byRecords: obj(
      {
        values: arr({ type: 'integer' }, 'Ref + log records per table, oldest first.'),
        segment: {
          ...segment,
          description:
            'The segment the same rule picks on record counts (git never compares counts; what lookups pay for).',
        },
        reasons: reasonsOf('Per table: why it is in or out.'),
      },
      'The same geometric rule applied to record counts.',
    ),
    byLive: obj(
      {
        values: arr({ type: 'integer' }, 'Live records per table (winners that are not tombstones), oldest first.'),
        segment: { ...segment, description: 'The segment the rule picks on live counts.' },
      },
      'The same rule applied to live records.',
    ),
    jgit: obj(
      {
        segment: {
          ...segment,
          description: "The segment JGit's rule (Gerrit) picks: adjacent tables with equal ⌊log2(size − 91)⌋.",
        },
        reasons: reasonsOf('Per table: why it is in or out.'),
        error: str('Present when JGit would throw (a net size ≤ 0); segment is then null.'),
      },
      "JGit's auto-compaction rule (FileReftableStack).",
      { optional: ['error'] },
    ),
    dropsTombstones: bool(
      "Whether git's segment starts at the base table, so its tombstones and log deletions are dropped.",
    ),
    afterPackRefs: {
      ...after,
      description: 'The stack after git pack-refs (everything into one table); a stack of one table is left as it is.',
    },
    afterAuto: {
      ...after,
      description: 'The stack after git pack-refs --auto merged `segment`; null when segment is null.',
    },
    afterSkipped: str(
      "Present when afterPackRefs and afterAuto are null for another reason: more than 250,000 records, a table could not be read, or git's compaction would fail on a record.",
    ),
    incomplete: {
      const: true,
      description: 'Present (true) when a table could not be read: git would fail to compact this stack.',
    },
    reason: str('With incomplete: why no compaction is predicted.'),
  },
  required: ['factor', 'segment'],
  anyOf: [
    { required: ['bySize', 'byRecords', 'byLive', 'jgit', 'dropsTombstones', 'afterPackRefs', 'afterAuto'] },
    { required: ['incomplete', 'reason'] },
  ],
  additionalProperties: true,
};
const stack = obj(
  {
    tables: int('Tables listed in tables.list.'),
    totalBytes: int("Sum of the tables' file sizes."),
    live: int('Merged-view records that are not tombstones (refs and symrefs, dangling symrefs included).'),
    tombstones: int('Tombstones that win in the merged view.'),
    tombstonesHiding: int('Of those, tombstones that hide at least one older record.'),
    danglingSymrefs: int(
      'Live symrefs whose target does not resolve (counted in live; refscope refs and git for-each-ref leave them out).',
    ),
    refRecords: int('Ref records over all tables (live, shadowed and tombstones).'),
    logRecords: int('Log records over all tables.'),
    namespaces: {
      type: 'object',
      additionalProperties: { type: 'integer', minimum: 0 },
      description:
        'Live refs per namespace: the first two name components (refs/heads, refs/tags, …), "(root)" for HEAD and other names outside refs/.',
    },
    continuity: arr(
      obj(
        {
          table: int('Index of the table (from 1).'),
          expectedMin: int("The previous table's max_update_index + 1."),
          actualMin: int("This table's min_update_index."),
          status: { enum: ['ok', 'gap', 'overlap'], description: 'ok when actualMin = expectedMin.' },
          through: int(
            'Present when the tables table..through (consecutive) all break the same way (the copies of one file): one entry for the run.',
          ),
        },
        'One readable table after the first, or a run of them (through).',
        { open: false, optional: ['through'] },
      ),
      'Update-index continuity between neighbouring tables.',
    ),
    incomplete: bool('True when some table could not be read (see tables[].error).'),
    incompleteFigures: arr(
      { type: 'string' },
      'The stack figures that leave the unreadable tables out; empty when incomplete is false.',
    ),
    compaction,
  },
  'The stack as a whole; null for packed-refs and files-backend input.',
);
stack.type = ['object', 'null'];
const finding = obj(
  {
    severity: {
      enum: ['error', 'warning', 'info'],
      description: 'error: something could not be read; warning: git would behave badly; info: worth knowing.',
    },
    file: str('File the finding is about.'),
    offset: {
      type: 'integer',
      minimum: -1,
      description: 'Byte offset in the file; -1 when it is about the whole file.',
    },
    message: str('What was expected and found, or what it means.'),
  },
  'One finding.',
);
const packedRefs = {
  type: 'object',
  description:
    'The packed-refs file and, for a files-backend .git directory, its loose refs (docs/packed-refs.md describes every field). Present for packed-refs and files-backend input.',
  properties: {
    present: bool('Whether a packed-refs file exists (a files-backend repository may have none).'),
    file: str('The packed-refs path.'),
    bytes: int('Its size.'),
    hash: str('Object id hash: sha1 or sha256.'),
    header: { type: ['string', 'null'], description: 'The "# pack-refs with:" line, or null.' },
    traits: arr({ type: 'string' }, 'Traits the header names (peeled, fully-peeled, sorted).'),
    unknownTraits: arr({ type: 'string' }, 'Traits git does not know.'),
    peeledTrait: str('The strongest peeling trait: none, peeled or fully-peeled.'),
    claimsSorted: bool('The header says sorted: git then binary-searches the file instead of sorting it on load.'),
    records: int('Ref lines.'),
    lines: int('All lines, peeled (^) lines and the header included.'),
    peeled: int('Peeled (^) lines.'),
    sorted: bool('Whether the records are in byte order.'),
    firstUnsorted: {
      type: ['object', 'null'],
      description: 'The first record out of order (line, offset, name, previous), or null.',
    },
    unfoundByBinarySearch: arr(
      { type: 'string' },
      "Names git's binary search would not find (an unsorted file that claims to be sorted).",
    ),
    duplicates: arr({ type: 'string' }, 'Names listed more than once.'),
    bisect: {
      type: 'object',
      description: "The lookup cost of git's binary search over the file (probes per lookup).",
    },
    peelCoverage: {
      type: 'object',
      description: 'Which refs carry a peeled value and which git must open the object database for.',
    },
    gitDies: {
      type: ['object', 'null'],
      description: 'When git itself would stop on this file (when, code, line, offset, message), or null.',
    },
    findings: arr(
      { type: 'object' },
      'Findings about the files (severity, code, file, line, offset, gitDies, message).',
    ),
    findingCounts: { type: 'object', additionalProperties: { type: 'integer' }, description: 'Findings per code.' },
    lookupCost: {
      type: 'object',
      description: 'What a ref lookup costs in this repository (packed file and loose refs).',
    },
    loose: {
      type: ['object', 'null'],
      description:
        'Loose refs, directories and reflogs of a files-backend repository; null for a lone packed-refs file.',
    },
    packRefsAuto: {
      type: ['object', 'null'],
      description:
        'What git pack-refs --auto would do in a files-backend repository; null for a lone packed-refs file.',
    },
    reftableEstimate: {
      type: 'object',
      description: 'The size and block counts of the same refs as one reftable table (estimated).',
    },
    namespaces: {
      type: 'object',
      additionalProperties: { type: 'integer', minimum: 0 },
      description:
        'Live refs per namespace, as stack.namespaces counts them (refs/heads, refs/pull, "(root)" for HEAD and other names outside refs/); absent when git cannot list the refs.',
    },
  },
  required: ['present', 'file', 'bytes', 'records', 'findings'],
  additionalProperties: true,
};
const report = doc(
  'report',
  'refscope.report/1',
  'The report of `refscope analyze --json` (docs/report.md): counts and per-table/per-block summaries, never ref names or object ids (namespace prefixes excepted). Sizes in bytes, counts in records, table indexes from the oldest (0).',
  {
    schema: schemaConst('refscope.report/1'),
    generator,
    input,
    tables: arr(
      tableOrCopy,
      'Tables, oldest first (tables.list order), one entry per line; empty for packed-refs and files-backend input.',
    ),
    stack,
    packedRefs,
    findings: arr(finding, 'What was found wrong or notable, errors first as they were met.'),
    diagnosis: str(
      'One paragraph in plain words with the numbers: what makes the stack slow, whether auto-compaction fixes it, what would.',
    ),
  },
  { optional: ['packedRefs'] },
);

// ------------------------------------------------------------------------------------------------
// refscope.simulation/1

const modelName = {
  enum: ['git-2.49', 'git-2.55', 'git-2.56', 'initial', 'files'],
  description: 'The model: git ≤ 2.49, 2.50–2.55, 2.56 and later, the initial reftable code, or the files backend.',
};
const simCounts = counts(
  'Every work counter of the run (src/engine/simulate/counts.ts; docs/simulation.md): processes, transactions, seeks, blocks, records decoded, tombstones stepped over, …',
);
const simulation = doc(
  'simulation',
  'refscope.simulation/1',
  'The document of `refscope simulate --json` (docs/simulation.md): per model the work git would do on the real tables and the time it would take, what would fix it, and the cost curve.',
  {
    schema: schemaConst('refscope.simulation/1'),
    generator,
    input: obj(
      {
        kind: { enum: ['reftable', 'files'], description: 'The backend simulated.' },
        description: str('The input in words.'),
        tables: arr(
          obj(
            {
              name: str('Table file name.'),
              bytes: int('File size.'),
              records: int('Ref records.'),
              tombstones: int('Tombstones.'),
            },
            'One readable table.',
          ),
          'Tables, oldest first (reftable; empty for files).',
        ),
        liveRefs: int('Live refs before the workload.'),
        tombstones: int('Winning tombstones before the workload.'),
        brokenTables: arr({ type: 'string' }, 'Tables that could not be read (left out of the simulation).'),
      },
      'What the simulation ran on.',
    ),
    workload: obj(
      {
        kind: {
          enum: ['updates', 'lookups', 'scans', 'objects'],
          description: 'Ref updates (update-ref --stdin), point lookups, prefix scans, or object-id lookups.',
        },
        description: str('The workload in words.'),
        operations: int('Operations (updates, lookups, scans or object lookups).'),
        transactions: int('Transactions (updates only; 0 otherwise).'),
      },
      'What was replayed.',
    ),
    constants: {
      type: 'object',
      description: 'The time constants used, in seconds per unit (docs/simulator.md "The fit").',
      additionalProperties: true,
    },
    results: arr(
      obj(
        {
          model: modelName,
          versions: str('The git versions the model stands for.'),
          summary: str('One line about the model.'),
          applicable: bool(
            'Whether the model applies to the input (reftable models to stacks, files to files-backend input).',
          ),
          reason: { type: ['string', 'null'], description: 'Why it does not apply; null when it does.' },
          seconds: {
            type: ['number', 'null'],
            description: 'Estimated wall time in seconds; null when not applicable.',
          },
          seeks: { type: ['integer', 'null'], description: 'Table seeks.' },
          blocksRead: { type: ['integer', 'null'], description: 'Blocks read (index and leaf).' },
          recordsDecoded: { type: ['integer', 'null'], description: 'Records decoded.' },
          tombstonesSkipped: { type: ['integer', 'null'], description: 'Tombstones stepped over.' },
          counts: { ...simCounts, type: ['object', 'null'] },
          phases: arr(
            obj(
              {
                phase: str('The phase (parse, prepare, commit, compaction, lookups, …).'),
                seconds: num('Seconds of the phase.'),
                counts: simCounts,
              },
              'One phase.',
            ),
            'The non-zero phases, in order.',
          ),
          errors: arr({ type: 'string' }, 'What git would refuse (first 20).'),
          errorCount: int('How many updates git would refuse.'),
          tablesAfter: { type: ['integer', 'null'], description: 'Tables in the stack after the workload (reftable).' },
        },
        'One model.',
      ),
      'Per model, in the order git-2.49, git-2.55, git-2.56, initial, files (those asked for).',
    ),
    fixes: arr(
      obj(
        {
          fix: {
            enum: ['pack-refs', 'auto-compaction', 'auto-compaction-by-records', 'newer-git', 'no-warn-ambiguous-refs'],
            description: 'Which fix.',
          },
          label: str('The fix in words (the command to run).'),
          model: modelName,
          applicable: bool('Whether the fix applies.'),
          baselineSeconds: num("The model's time without the fix."),
          seconds: { type: ['number', 'null'], description: 'Time with the fix; null when not applicable.' },
          speedup: { type: ['number', 'null'], description: 'baselineSeconds / seconds.' },
          note: str('What the fix does to the stack, with numbers.'),
        },
        'One fix, applied to the oldest reftable model run.',
      ),
      'What would fix it; empty for files input or with --no-fixes.',
    ),
    explanation: str('A paragraph in plain words.'),
    curve: {
      type: ['object', 'null'],
      description:
        'Estimated time against batch size n with the stack scaled with n; null with --no-curve or an empty workload.',
      properties: {
        n: arr({ type: 'integer' }, 'Batch sizes.'),
        simulatedN: int('Operations of the simulated workload (the curve passes through it exactly).'),
        series: arr(
          {
            type: 'object',
            description: 'One model: model and the seconds per n (sameShape, …).',
            additionalProperties: true,
          },
          'Per model.',
        ),
      },
      required: ['n', 'simulatedN', 'series'],
      additionalProperties: true,
    },
  },
);

// ------------------------------------------------------------------------------------------------
// the other commands

const refs = doc(
  'refs',
  'refscope.refs/1',
  "The document of `refscope refs --json`: the live refs as git for-each-ref --include-root-refs lists them, byte-sorted (symrefs with their target's id; dangling symrefs left out).",
  {
    schema: schemaConst('refscope.refs/1'),
    generator,
    input,
    count: int('Refs listed.'),
    refs: arr(
      obj(
        {
          ...refName,
          oid: {
            type: 'string',
            pattern: '^[0-9a-f]{40}([0-9a-f]{24})?$',
            description: 'Object id in hex (of the target for a symref).',
          },
        },
        'One ref.',
        { optional: ['nameHex'] },
      ),
      'The refs, in byte order of their names.',
    ),
  },
);
const stats = {
  type: ['object', 'null'],
  description:
    'Record counts of the compaction (tablesIn, bytesIn, refsOut, logsOut, shadowedRefs, shadowedLogs, tombstonesDropped, logDeletionsDropped, tombstonesKept, logDeletionsKept); null when nothing was compacted.',
  additionalProperties: { type: 'integer' },
};
const files = arr(
  obj({ name: str('File name.'), bytes: int('Size written.') }, 'One file.'),
  'Every file written to the output directory, tables.list last.',
);
const compact = doc(
  'compact',
  'refscope.compact/1',
  'The document of `refscope compact --json`: what was compacted and written.',
  {
    schema: schemaConst('refscope.compact/1'),
    generator,
    mode: { enum: ['all', 'auto'], description: 'all: git pack-refs; auto: git pack-refs --auto.' },
    factor: { type: ['integer', 'null'], description: 'The geometric factor (--auto); null for all.' },
    out: str('The reftable/ directory written.'),
    changed: bool('Whether a new table was written (false: nothing to compact, the stack was copied).'),
    segment: { ...segment, description: 'The tables merged; null when nothing was compacted.' },
    newTable: {
      type: ['object', 'null'],
      description: 'The new table (name, bytes); null when none is listed.',
      properties: { name: str('File name.'), bytes: int('Size.') },
    },
    empty: bool('Every record cancelled out: git lists no new table.'),
    dropsDeletions: bool('Tombstones and log deletions were dropped (the segment starts at the base table).'),
    stats,
    specDroppable: {
      type: ['object', 'null'],
      description: 'Deletions carried forward that the specification would allow to drop (tombstones, logDeletions).',
      additionalProperties: { type: 'integer' },
    },
    files,
    summary: str("What happened, in words (the text output's first lines)."),
  },
);
const convert = doc(
  'convert',
  'refscope.convert/1',
  'The document of `refscope convert --json`: the one-table stack written.',
  {
    schema: schemaConst('refscope.convert/1'),
    generator,
    input,
    out: str('The reftable/ directory written.'),
    table: obj(
      {
        name: str('Table file name.'),
        bytes: int('Size.'),
        minUpdateIndex: int('Header min_update_index (1).'),
        maxUpdateIndex: int('Header max_update_index.'),
      },
      'The table written.',
    ),
    refs: obj(
      { direct: int('Refs with one object id.'), peeled: int('Refs with a peeled value.'), symref: int('Symrefs.') },
      'Ref records written by kind.',
    ),
    logs: int('Reflog entries written.'),
    unpeeled: int('Refs written without a known peeled value (git peels through the object database).'),
    skipped: arr(
      obj({ ...refName, reason: str('Why it was left out.') }, 'One ref or reflog left out.', {
        optional: ['nameHex'],
      }),
      "Refs and reflogs left out (git's migration would fail on them).",
    ),
    files,
  },
);
const link = doc(
  'link',
  'refscope.link/1',
  'The document of `refscope share --json`: the share link and what it contains.',
  {
    schema: schemaConst('refscope.link/1'),
    generator,
    link: str(
      "The link: base URL and a fragment (#s=…) carrying the report's shape; the fragment is never sent to a server.",
    ),
    chars: int('Length of the link in characters.'),
    base: str('The base URL the link points at.'),
    baseFrom: {
      enum: ['option', 'serve', 'default'],
      description: 'Where the base came from: --base, a running refscope serve, or the default http://127.0.0.1:4173/.',
    },
    withNames: bool('Whether example ref names are in the link.'),
    summary: str('One line: what was shared.'),
    contains: arr({ type: 'string' }, 'What the link contains, one item per entry.'),
    omits: arr({ type: 'string' }, 'What it does not contain.'),
  },
);
const exp = doc(
  'export',
  'refscope.export/1',
  'The document of `refscope export --json`: the export, wrapped.',
  {
    schema: schemaConst('refscope.export/1'),
    generator,
    format: { enum: ['json', 'md', 'script'], description: 'The --format.' },
    from: { enum: ['files', 'link'], description: 'Whether the report came from files or from a share link.' },
    report: { $ref: 'report.schema.json', description: 'For --format json: the refscope.report/1 document.' },
    text: str('For md and script: the Markdown or the bash script.'),
  },
  { optional: ['report', 'text'] },
);
exp.oneOf = [{ required: ['report'] }, { required: ['text'] }];
const serve = doc(
  'serve',
  'refscope.serve/1',
  'The document `refscope serve --json` prints once it listens (it then keeps serving).',
  {
    schema: schemaConst('refscope.serve/1'),
    generator,
    url: str('The URL to open.'),
    port: int('The port.', 1),
    pid: int("The server's process id.", 1),
    root: str('The directory served (the built app).'),
    started: str('When it started (ISO 8601).'),
    stateFile: str('Where the URL is recorded for refscope share while the server runs.'),
  },
);

const compareRow = obj(
  {
    what: str('What is compared: "total (CPU)", a trace2 phase, a predicted part, a region or a counter.'),
    predicted: nul(num("refscope's prediction in seconds; null where it predicts nothing.")),
    measured: nul(num('What the script measured (seconds, or a count for counters); null where nothing was measured.')),
    unit: {
      enum: ['cpu', 'wall', 'count'],
      description: 'cpu: user+sys seconds; wall: trace2 elapsed seconds; count: a trace2 counter.',
    },
  },
  'One line of the comparison.',
);
const calibration = doc(
  'calibration',
  'refscope.calibration/1',
  "The document of `refscope calibrate --json`: the prediction a measure script carried against what it measured with the user's git, and that machine's factor.",
  {
    schema: schemaConst('refscope.calibration/1'),
    generator,
    git: str("What the user's git --version printed in the script."),
    model: str('The model predicted.'),
    workload: str('The workload timed, in words.'),
    runs: int('Runs before and after git pack-refs.'),
    before: arr(compareRow, 'Before git pack-refs on the copy.'),
    after: arr(compareRow, 'After git pack-refs on the copy.'),
    factorBefore: nul(num('Measured CPU ÷ predicted, before pack-refs (median over runs).')),
    factorAfter: nul(num('Measured CPU ÷ predicted, after pack-refs.')),
    factor: nul(num("The machine's factor: the geometric mean of the two, for simulate --machine-factor.")),
    gain: obj(
      {
        measured: nul(num('Measured gain of pack-refs (CPU before ÷ after).')),
        predicted: nul(num('Predicted gain of pack-refs.')),
      },
      'The pack-refs gain.',
    ),
    failures: arr(str('A run that failed, with its exit code.'), 'Runs that failed.'),
  },
);

// ------------------------------------------------------------------------------------------------
// the workbench: show, diff, watch

const hexId = (description) => ({ type: 'string', pattern: '^[0-9a-f]{40}([0-9a-f]{24})?$', description });
const tableName = str('Table file name (as listed in tables.list).');
const history = doc(
  'history',
  'refscope.history/1',
  "The document of `refscope show --json`: every record of one ref name in every table of a reftable stack, newest table first, which one git reads, and the name's reflog entries.",
  {
    schema: schemaConst('refscope.history/1'),
    generator,
    input,
    ...refName,
    live: bool('Whether the name is a live ref: its newest record is not a tombstone.'),
    winner: nul(str('Table of the record git reads (the newest record of the name); null when no table has one.')),
    tables: int('Tables in tables.list.'),
    tablesRead: int('Tables that could be read (a damaged table is skipped and reported on standard error).'),
    records: arr(
      obj(
        {
          table: tableName,
          tableIndex: int('Position of the table in tables.list (oldest = 0).'),
          updateIndex: int("The record's update_index."),
          kind: {
            enum: ['value', 'peeled', 'symref', 'tombstone'],
            description:
              'Value type: value (one object id, type 1), peeled (object id and peeled id, type 2), symref (type 3), tombstone (deletion, type 0).',
          },
          oid: hexId('Object id, for value and peeled.'),
          peeled: hexId('Peeled object id, for peeled.'),
          target: str('Target ref name, for symref.'),
          wins: bool('Whether this is the record git reads (the newest).'),
          shadowedBy: nul(str('Table of the record that shadows this one; null for the winner.')),
          hides: arr(tableName, 'Tables of the older records of the name this record shadows.'),
        },
        'One record of the name.',
        { optional: ['oid', 'peeled', 'target'] },
      ),
      'The records, newest table first.',
    ),
    logs: arr(
      obj(
        {
          table: tableName,
          tableIndex: int('Position of the table in tables.list.'),
          updateIndex: int("The log record's update_index."),
          type: { enum: ['update', 'deletion'], description: 'Log record type: 1 update, 0 deletion.' },
          wins: bool(
            'False when a newer table has a log record with the same key (name, update_index): git reads only the newest.',
          ),
          oldId: hexId('Old object id (update).'),
          newId: hexId('New object id (update).'),
          name: str('Committer name (update).'),
          email: str('Committer email (update).'),
          time: int('Seconds since the epoch (update).'),
          tzOffset: { type: 'integer', description: 'Time zone as stored: ±hhmm as a signed integer (update).' },
          message: str('Reflog message (update).'),
        },
        'One reflog entry.',
        { optional: ['oldId', 'newId', 'name', 'email', 'time', 'tzOffset', 'message'] },
      ),
      'Reflog entries of the name, newest first (update_index descending, newer table first).',
    ),
    work: obj(
      {
        seeks: int('Point seeks made: one per table read.'),
        blocksRead: int('Index and ref blocks the seeks read.'),
        logBlocksRead: int('Log blocks inflated (those whose key range can hold the name).'),
      },
      'The work done.',
    ),
  },
  { optional: ['nameHex'] },
);

const diffTable = obj(
  {
    name: tableName,
    minUpdateIndex: int('Header min_update_index.'),
    maxUpdateIndex: int('Header max_update_index.'),
    bytes: int('File size.'),
    records: int('Ref records (values, peeled, symrefs, tombstones).'),
  },
  'One table.',
);
const diffSide = obj(
  {
    input,
    kind: str('Input kind (reftable, files, packed-refs).'),
    tables: int('Tables in tables.list (0 for packed-refs and files input).'),
    bytes: int('Bytes of the tables (or of packed-refs).'),
    liveRefs: int('Live refs in the merged view (symrefs included, tombstones not).'),
    tombstones: int('Tombstone records in every table, winning or not.'),
    debt: obj(
      {
        droppableRecords: int(
          'Records a full git pack-refs would leave out: records shadowed by a newer record of their name, plus winning tombstones.',
        ),
        extraTables: int('Tables beyond one.'),
        segment: {
          type: ['object', 'null'],
          description:
            "The tables git's auto-compaction would merge now (factor 2, indexes oldest = 0, end inclusive); null when the stack is geometric.",
          properties: { start: int('First table.'), end: int('Last table.') },
        },
      },
      'Compaction debt.',
    ),
  },
  'One side of the comparison.',
);
const diffRef = obj(
  {
    ...refName,
    before: str('Value before: an object id, or "ref: <target>" for a symref (absent for a created ref).'),
    after: str('Value after (absent for a deleted ref).'),
  },
  'One ref.',
  { optional: ['nameHex', 'before', 'after'] },
);
const diffRecord = obj(
  {
    ...refName,
    updateIndex: int("The record's update_index."),
    kind: { enum: ['value', 'peeled', 'symref', 'tombstone'], description: 'Value type.' },
    table: tableName,
  },
  'One ref record.',
  { optional: ['nameHex'] },
);
const diff = doc(
  'diff',
  'refscope.diff/1',
  'The document of `refscope diff --json`: what changed from snapshot a (before) to snapshot b (after) of the same ref storage.',
  {
    schema: schemaConst('refscope.diff/1'),
    generator,
    before: diffSide,
    after: diffSide,
    compaction: bool(
      'Whether an added table merged removed ones (a compaction ran); false when the stacks look unrelated.',
    ),
    unrelated: {
      type: ['string', 'null'],
      description:
        "Why the after stack cannot be the before stack after git's writes and compactions (no table in common and another first update_index, a table gone that no new table covers, a new table not past the old maximum, a merged record lost); null when it can.",
    },
    writes: bool("Whether new transactions were written (update indexes past the before side's maximum)."),
    tablesAdded: arr(diffTable, 'Tables in the after list only, oldest first.'),
    tablesRemoved: arr(diffTable, 'Tables in the before list only, oldest first.'),
    tablesKept: int('Tables in both lists.'),
    merges: arr(
      obj(
        {
          table: diffTable,
          from: arr(diffTable, 'The removed tables whose update_index ranges lie inside its range, oldest first.'),
        },
        'An added table that replaced removed ones.',
      ),
      'Compactions: each new table and the tables it merged.',
    ),
    refs: obj(
      {
        created: arr(diffRef, 'Refs live after only.'),
        updated: arr(diffRef, 'Refs live on both sides with another value.'),
        deleted: arr(diffRef, 'Refs live before only.'),
      },
      'Refs of the merged view that changed, in byte order of their names.',
    ),
    records: obj(
      {
        dropped: arr(diffRecord, 'Records (name, update_index, kind) of removed tables that no added table carries.'),
        written: arr(diffRecord, 'Records of added tables that no removed table had.'),
      },
      'Ref records that exist on one side only.',
    ),
    tombstonesAdded: int('Tombstone records written.'),
    tombstonesDropped: int('Tombstone records dropped.'),
    logsDropped: int('Log records (name, update_index) of removed tables no added table carries.'),
    logsWritten: int('Log records of added tables no removed table had.'),
  },
);

const seg = (description) => ({
  type: 'object',
  description,
  properties: { start: int('First table (oldest = 0).'), end: int('Last table (inclusive).') },
  required: ['start', 'end'],
  additionalProperties: true,
});
const watch = doc(
  'watch',
  'refscope.watch/1',
  'One line of `refscope watch --json` (JSON Lines): one event per new tables.list state or lock-file change of a live reftable stack.',
  {
    schema: schemaConst('refscope.watch/1'),
    generator,
    dir: str('The reftable directory watched.'),
    time: str('When the state was seen (ISO 8601).'),
    seq: int('1 for the first state, then one more per event.', 1),
    tables: arr(tableName, 'The listed tables, oldest first.'),
    appended: arr(tableName, 'Tables appended since the last event (new transactions); empty on the first.'),
    removed: arr(tableName, 'Tables that left the list since the last event.'),
    compactions: arr(
      obj(
        {
          segment: seg("Positions of the merged tables in the previous event's list."),
          from: arr(tableName, 'The merged tables.'),
          into: nul(str('The table written for them; null when every record cancelled out and none is listed.')),
        },
        'A compaction between the two states (auto-compaction or pack-refs).',
      ),
      'Compactions since the last event.',
    ),
    locks: obj(
      {
        present: arr(str('A lock file name.'), 'Lock files in the directory now.'),
        appeared: arr(str('A lock file name.'), 'Lock files that appeared since the last event.'),
        disappeared: arr(str('A lock file name.'), 'Lock files gone since the last event.'),
      },
      'Lock files (tables.list.lock, <table>.lock).',
    ),
    records: int('Ref records in every listed table.'),
    tombstones: int('Tombstone records among them.'),
    tombstoneRatio: num('tombstones / records (0 for an empty stack).'),
    bytes: int('Bytes of the listed tables.'),
    geometric: bool("git's auto-compaction rule (factor 2, bytes) finds nothing to merge."),
    segment: { ...seg('The tables the rule would merge now.'), type: ['object', 'null'] },
    alerts: arr(
      str('One alert in words.'),
      'The stack is not geometric; tombstones pile up (at least 100 and half the records).',
    ),
    tablesRead: int('Tables parsed for this event; the others came from the cache.'),
  },
);

// `refscope scan`: one row per repository (a flat record: a Parquet row and a JSON Lines line
// alike) and the summary document --json prints.
const nint = (d) => nul(int(d));
const nstr = (d) => nul(str(d));
const nnum = (d) => nul(num(d));
const modelCols = {};
for (const [key, model] of [
  ['git249', 'git-2.49 (git ≤ 2.49)'],
  ['git255', 'git-2.55 (2.50–2.55)'],
  ['git256', 'git-2.56 (2.56 and later)'],
  ['files', 'files (the files backend)'],
]) {
  modelCols[`${key}Seconds`] = nnum(
    `Estimated CPU seconds of the workload with model ${model}; null when the model does not apply to the backend or there is no estimate.`,
  );
  modelCols[`${key}Fix`] = nstr(
    `The fix that gains most against model ${model} (pack-refs, auto-compaction, auto-compaction-by-records, newer-git, no-warn-ambiguous-refs); null when none gains.`,
  );
  modelCols[`${key}FixSeconds`] = nnum(`Estimated seconds with that fix, model ${model}.`);
  modelCols[`${key}FixGain`] = nnum(`Seconds without the fix over seconds with it, model ${model}.`);
}
const scanRow = doc(
  'scan-row',
  'refscope.scan-row/1',
  'One repository of `refscope scan` (a Parquet row or a JSON Lines line; the Parquet file names this schema in its key-value metadata `refscope.schema`). Figures are those of `refscope analyze --json` on the repository; null means not known (see error, gitReadable, estimateNote).',
  {
    root: str('The root it was found under, as an absolute path.'),
    path: str('Its path relative to the root, /-separated ("." for the root itself): what --shard hashes.'),
    bare: bool('A bare repository (else a work tree with a .git directory).'),
    layout: {
      enum: ['gitlab-hashed', 'wiki', null],
      description:
        "A forge layout told by the path: GitLab's hashed storage (@hashed/ab/cd/<sha256>.git) or a wiki (*.wiki.git).",
    },
    backend: {
      enum: ['reftable', 'files', null],
      description: 'The ref backend; null when refscope could not analyse it (error).',
    },
    refs: nint(
      'Live refs under refs/: what `git for-each-ref | wc -l` counts (dangling symrefs left out); null when git dies on the files backend. When gitReadable is false (a reftable table unreadable) it counts the intact tables, while git lists nothing.',
    ),
    liveRefs: nint(
      'Live refs of the report (stack.live for reftable, HEAD and root refs included; the for-each-ref --include-root-refs listing for files).',
    ),
    tables: nint('Tables in tables.list (stack.tables); 0 for the files backend.'),
    bytes: nint('Bytes of ref storage: every table (stack.totalBytes), or packed-refs plus the loose refs.'),
    refRecords: nint('Ref records of every table (stack.refRecords), or packed-refs records plus loose refs.'),
    tombstones: nint('Winning tombstones (stack.tombstones).'),
    tombstoneRecords: nint('Every tombstone record of every table (stack.tombstoneRecords).'),
    hiddenRecords: nint('Records hidden by a newer tombstone (sum of tables[].hiddenByTombstone).'),
    tombstoneShare: nnum(
      '(tombstoneRecords + hiddenRecords) / refRecords: the share of ref records a reader steps over that deletions left behind.',
    ),
    autoSegment: nstr(
      'The tables git pack-refs --auto merges, "start-end" (indexes, oldest = 0, lock files taken into account); null when it merges nothing.',
    ),
    debtTables: nint(
      'Compaction debt: tables git pack-refs --auto leaves unmerged while more than one table would remain (0 when it would leave one); null for the files backend or an unreadable stack.',
    ),
    debtBytes: nint('Bytes of those tables.'),
    debtRecords: nint(
      'Ref and log records of those tables; for the files backend, the loose refs pack-refs --auto leaves loose.',
    ),
    locks: nint('Lock files: of the reftable directory (stack.locks), or packed-refs.lock and *.lock under refs/.'),
    findings: nint('Findings of the report.'),
    findingErrors: nint('Of those, errors.'),
    findingCodes: str(
      "The findings' distinct codes (their messages without numbers and names, six words at most), sorted, comma-separated.",
    ),
    gitReadable: nul(bool('Whether git can read the repository at all (verdict.gitReadable).')),
    unreadableReason: nstr('What git trips on when it cannot (verdict.reason).'),
    workload: nstr(
      'The workload simulated: "recreate" when tombstones hide refs (re-create them all), else one transaction creating 100 branches.',
    ),
    estimateNote: nstr('Why there is no estimate (git cannot read it, --no-estimates, past the budget).'),
    ...modelCols,
    error: nstr(
      'Why refscope could not analyse the repository (one line: file, offset, expected); every figure is then null.',
    ),
  },
);
const scan = doc(
  'scan',
  'refscope.scan/1',
  'What `refscope scan --json` prints: the summary, and the rows themselves when there is no --out.',
  {
    schema: schemaConst('refscope.scan/1'),
    generator,
    rowSchema: { const: 'refscope.scan-row/1', description: 'The schema of each row.' },
    roots: arr(str('A root.'), 'The roots, as absolute paths, in the order given.'),
    shard: nul(obj({ k: int('This shard.', 1), n: int('Shards in all.', 1) }, 'The --shard K/N.')),
    jobs: int('Worker threads.', 1),
    out: nstr('The file written (absolute), or null (rows on standard output).'),
    format: { enum: ['parquet', 'jsonl'], description: 'Parquet or JSON Lines.' },
    found: int('Repositories found under the roots.'),
    repositories: int('Of those, in this shard (all without --shard): the rows written.'),
    scanned: int('Rows made by this run.'),
    resumed: int('Rows taken from the journal of an interrupted run.'),
    errors: int('Rows with error set.'),
    unreadable: int('Rows git cannot read (gitReadable false).'),
    skipped: arr(
      obj({ path: str('The path.'), reason: str('Why it was not walked.') }, 'A path not walked.'),
      'Directories not walked: symbolic links (never followed), unreadable directories, .git files.',
    ),
    seconds: num('Wall-clock seconds of the scanning.'),
    rows: arr({ $ref: 'https://refscope.invalid/schemas/scan-row.schema.json' }, 'The rows, when there is no --out.'),
  },
  { optional: ['rows'] },
);

const all = {
  'scan-row': scanRow,
  scan,
  report,
  simulation,
  refs,
  compact,
  convert,
  link,
  export: exp,
  serve,
  calibration,
  history,
  diff,
  watch,
};
const check = process.argv.includes('--check');
let differs = 0;
for (const [name, schema] of Object.entries(all)) {
  const file = path.join(ROOT, 'schemas', `${name}.schema.json`);
  const text = JSON.stringify(schema, null, 2) + '\n';
  if (check) {
    if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== text) {
      console.error(`schemas/${name}.schema.json differs from scripts/make-schemas.mjs`);
      differs++;
    }
  } else {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  }
}
process.exitCode = differs ? 1 : 0;
