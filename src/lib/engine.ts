/**
 * `import … from 'refscope/engine'`: the pure engine, for any JavaScript runtime (browsers,
 * workers, Node, Deno, Bun). No file system: give it `InputFile`s (a path and a `ByteSource`,
 * e.g. `memorySource(bytes)`), get an `Analysis`, a `refscope.report/1` document, the refs, a
 * simulation or a compaction back.
 *
 *   import { analyzeFiles, buildReport, memorySource, simulate } from 'refscope/engine';
 *   const a = analyzeFiles([{ path: 'packed-refs', source: memorySource(bytes) }]);
 *   const report = buildReport(a);
 *   const sim = simulate(a, 'recreate');
 */
export * from '../engine/index.ts';
export {
  simulate,
  Simulator,
  SIMULATION_SCHEMA,
  MODEL_NAMES,
  MODELS,
  SpecError,
  SimulationLimitError,
  parseWorkloadSpec,
  parseUpdateRefStdin,
  type SimulateOptions,
  type SimulationResult,
  type ModelResult,
  type FixResult,
  type ModelName,
  type Workload,
  type SimInput,
} from '../engine/simulate/index.ts';
export {
  compactAll,
  compactAuto,
  compactSegment,
  convertFilesToReftable,
  stackFiles,
  stackFilesAfter,
  tableRefRecords,
  tableLogRecords,
  type CompactResult,
  type CompactOptions,
  type ConvertOptions,
  type ConvertResult,
  type StackFile,
} from '../engine/reftable/compact.ts';
export {
  gitAutoCompaction,
  geometryByCount,
  jgitCompaction,
  type Segment,
  type GeometryResult,
} from '../engine/reftable/auto-compaction.ts';
export {
  writeTable,
  tableFileName,
  type WriterOptions,
  type RefRecordIn,
  type LogRecordIn,
} from '../engine/reftable/writer.ts';
