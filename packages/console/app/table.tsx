/**
 * The console's one table of records: columns declared as data (a header and how a row fills its
 * cell), a caption that names the table for screen readers, and the states around it (loading,
 * failed, empty), so each list page says what it shows, not how a table is written.
 */
import type { ComponentChildren, VNode } from 'preact';
import { ErrorNotice } from './components.js';
import { formatNumber } from './format.js';
import type { Resource } from './hooks.js';

export interface Column<T> {
  /** The column's header, a `<th scope="col">`. */
  header: string;
  /** What a row shows in this column. */
  cell: (row: T) => ComponentChildren;
}

export interface TableProps<T> {
  columns: Column<T>[];
  rows: readonly T[];
  /** A stable key for each row (its record's id). */
  rowKey: (row: T) => string;
  /** The table's accessible name; a table without one is named by the section around it. */
  caption?: ComponentChildren;
  striped?: boolean;
  class?: string;
  /** Renders a row itself, for rows that are more than their cells (one that opens a detail row below it). */
  renderRow?: (row: T, cells: VNode) => VNode;
}

export function Table<T>({ columns, rows, rowKey, caption, striped = true, class: className, renderRow }: TableProps<T>) {
  const classes = [striped ? 'striped' : '', className ?? ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class="overflow-auto">
      <table class={classes}>
        {caption !== undefined && <caption>{caption}</caption>}
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column.header} scope="col">
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => {
            const cells = (
              <tr key={rowKey(row)}>
                {columns.map((column) => (
                  <td key={column.header}>{column.cell(row)}</td>
                ))}
              </tr>
            );
            return renderRow ? renderRow(row, cells) : cells;
          })}
        </tbody>
      </table>
    </div>
  );
}

export interface ResourceTableProps<D, T> extends Omit<TableProps<T>, 'rows' | 'caption'> {
  /** The loaded page of records (`useResource`). */
  resource: Resource<D>;
  /** The records in a loaded page. */
  rowsOf: (data: D) => readonly T[];
  /** The caption, from the page (`3 of 10 runs`) when it needs it. */
  caption?: ComponentChildren | ((rows: readonly T[], data: D) => ComponentChildren);
  /** What the page says when there are no records. */
  empty: ComponentChildren;
  /** What failed, said before the error: "Loading the runs failed". */
  errorContext: string;
  /** What is loading, said while the first page is on its way. */
  loading?: string;
}

/**
 * A table over a loaded resource: its error as an alert, a busy note until the first answer, the
 * empty text when there are no records, else the table. A reload keeps the last rows on screen.
 */
export function ResourceTable<D, T>({ resource, rowsOf, caption, empty, errorContext, loading = 'Loading…', ...table }: ResourceTableProps<D, T>) {
  const { data } = resource;
  const rows = data === undefined ? [] : rowsOf(data);
  return (
    <>
      <ErrorNotice error={resource.error} context={errorContext} />
      {data === undefined && resource.loading && <p aria-busy="true">{loading}</p>}
      {data !== undefined &&
        (rows.length === 0 ? <p>{empty}</p> : <Table {...table} rows={rows} caption={typeof caption === 'function' ? caption(rows, data) : caption} />)}
    </>
  );
}

/** A caption for a page of a longer list: "3 of 10 runs, newest first". */
export const pageCaption = (shown: number, total: number, what: string) => `${formatNumber(shown)} of ${formatNumber(total)} ${what}`;
