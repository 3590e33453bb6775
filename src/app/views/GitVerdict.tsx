import type { Report } from '../../engine/report.ts';

/**
 * The first thing a view says when git cannot read the input (`Report.verdict`): git refuses it,
 * why, and that whatever the view shows below is refscope's reading of the intact parts, not
 * git's behaviour. Renders nothing when git can read the input (or the report predates the field).
 */
export function GitVerdict({ report, shows }: { report: Report | null | undefined; shows: string }) {
  const v = report?.verdict;
  if (!v || v.gitReadable) return null;
  return (
    <div className="panel git-unreadable inline-error" role="alert" data-testid="git-unreadable">
      <strong>Git cannot read this {report?.stack ? 'stack' : 'repository'}:</strong> {v.reason}. <span>{shows}</span>
    </div>
  );
}

/** True when git refuses the input: views then offer no prediction as git's. */
export function gitRefuses(report: Report | null | undefined): boolean {
  return !!report?.verdict && !report.verdict.gitReadable;
}
