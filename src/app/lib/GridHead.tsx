import type { ReactNode } from 'react';

/** A column of a grid table's header: a plain label, or a label with `num` (right-aligned figures). */
export type GridColumn = ReactNode | { label: ReactNode; num: true };

/** The header row of a `table.grid`: one `th scope=col` per column, figures' columns right-aligned. */
export function GridHead({ columns }: { columns: GridColumn[] }) {
  return (
    <thead>
      <tr>
        {columns.map((c, i) => {
          const num = typeof c === 'object' && c !== null && 'num' in c;
          return (
            <th key={i} scope="col" className={num ? 'num' : undefined}>
              {num ? c.label : c}
            </th>
          );
        })}
      </tr>
    </thead>
  );
}

/** A figures' column (right-aligned). */
export const num = (label: ReactNode): GridColumn => ({ label, num: true });
