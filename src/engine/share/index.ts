/**
 * share: the diagnostic link. A report's *shape* — per-table figures, record counts by kind and
 * namespace, which tables' records override which, the compaction factor and, if given, the
 * sharer's simulation results — encoded compactly in the URL fragment:
 *
 *     <base>#s=<version>.<base64url(deflate(payload))>
 *
 * One concept per file: limits (bounds and the decoder's error), payload (the data and its
 * figures), redact (what keeps names out), build (payload from an analysis), codec (bytes),
 * validate (checks before any loop), base64url, link (the text), describe (in words), rebuild
 * (a report from a payload), synthetic (a stack of the same shape), simulation (the simulator's
 * results in a link). Pure TypeScript: no DOM, no Node APIs.
 */
export * from './limits.ts';
export * from './payload.ts';
export * from './redact.ts';
export * from './build.ts';
export * from './codec.ts';
export * from './validate.ts';
export * from './base64url.ts';
export * from './link.ts';
export * from './describe.ts';
export * from './rebuild.ts';
export * from './synthetic.ts';
export * from './simulation.ts';
