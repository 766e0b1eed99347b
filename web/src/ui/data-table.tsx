/**
 * A table of records, one row each, as screen readers navigate it: a name (its caption, shown or
 * read only, or the heading that names it), a header cell over each column, and the cell that
 * names each row as that row's header (`<th scope="row">`), read before every other cell of the
 * row. It scrolls sideways on its own where the window is narrower than it (`table-wrap`).
 */
import type { Key, ReactNode } from "react";

export interface Column<Row> {
  /** The column's heading; an action column's (its buttons name themselves) is read, not shown. */
  readonly header: string;
  readonly hideHeader?: boolean;
  /** This column's cell names its row: the link to it, its email. One column at most. */
  readonly rowHeader?: boolean;
  /** Amounts of money, aligned for comparing (`amount`). */
  readonly amount?: boolean;
  readonly cell: (row: Row) => ReactNode;
}

/** What names the table: its caption (read, not shown, with `hideCaption`), or an element's id. */
type TableName =
  { readonly caption: ReactNode; readonly hideCaption?: boolean } | { readonly labelledBy: string };

export function DataTable<Row>(
  props: TableName & {
    readonly columns: readonly Column<Row>[];
    readonly rows: readonly Row[];
    readonly rowKey: (row: Row) => Key;
    /** A row to mark (`refused`: the API refused what was asked of it). */
    readonly rowClassName?: (row: Row) => string | undefined;
  },
) {
  const { columns, rows, rowKey, rowClassName } = props;
  return (
    <div className="table-wrap">
      <table {...("labelledBy" in props ? { "aria-labelledby": props.labelledBy } : {})}>
        {"caption" in props ? (
          <caption className={props.hideCaption === true ? "visually-hidden" : undefined}>
            {props.caption}
          </caption>
        ) : null}
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column.header} scope="col">
                {column.hideHeader === true ? (
                  <span className="visually-hidden">{column.header}</span>
                ) : (
                  column.header
                )}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)} className={rowClassName?.(row)}>
              {columns.map((column) => {
                const className = column.amount === true ? "amount" : undefined;
                return column.rowHeader === true ? (
                  <th key={column.header} scope="row" className={className}>
                    {column.cell(row)}
                  </th>
                ) : (
                  <td key={column.header} className={className}>
                    {column.cell(row)}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
