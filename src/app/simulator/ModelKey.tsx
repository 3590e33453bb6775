/** Line style and marker per model: legend keys and chart markers (told apart without colour). */
import type { ModelName } from '../../engine/simulate/models.ts';

export const MODEL_CLASS: Record<ModelName, string> = {
  'git-2.49': 'm0',
  'git-2.55': 'm1',
  'git-2.56': 'm2',
  initial: 'm3',
  files: 'm4',
};
export const DASH: Record<ModelName, string | undefined> = {
  'git-2.49': undefined,
  'git-2.55': '7 4',
  'git-2.56': undefined,
  initial: '2 3',
  files: '9 3 2 3',
};

/** A model's line style, as a legend key. */
export function ModelKey({ model }: { model: ModelName }) {
  return (
    <svg className={`sim-key ${MODEL_CLASS[model]}`} width="26" height="12" viewBox="0 0 26 12" aria-hidden="true">
      <line x1="1" x2="25" y1="6" y2="6" strokeDasharray={DASH[model]} />
      <Marker model={model} x={13} y={6} r={3.5} />
    </svg>
  );
}

/** A marker shape per model (so that the lines are told apart without colour). */
export function Marker({ model, x, y, r }: { model: ModelName; x: number; y: number; r: number }) {
  switch (model) {
    case 'git-2.49':
      return <rect className="sim-mark" x={x - r} y={y - r} width={2 * r} height={2 * r} />;
    case 'git-2.55':
      return (
        <path
          className="sim-mark"
          d={`M${x},${y - r * 1.3} L${x + r * 1.3},${y} L${x},${y + r * 1.3} L${x - r * 1.3},${y} Z`}
        />
      );
    case 'initial':
      return (
        <path className="sim-mark" d={`M${x},${y - r * 1.25} L${x + r * 1.2},${y + r} L${x - r * 1.2},${y + r} Z`} />
      );
    case 'files':
      return (
        <path className="sim-mark" d={`M${x - r},${y - r} L${x + r},${y + r} M${x + r},${y - r} L${x - r},${y + r}`} />
      );
    default:
      return <circle className="sim-mark" cx={x} cy={y} r={r} />;
  }
}
