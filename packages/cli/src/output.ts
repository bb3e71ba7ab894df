/**
 * What `cgw` prints on stdout: tables for people (cli-table3), or with `--json` the operation's `data` as one JSON
 * document, so `cgw offers --json | jq` works. Money is USD with at most the 6 decimals the API gives (SPEC 2.5:
 * micro-dollars), never rounded to cents, so what is shown is what was charged.
 */
import Table from 'cli-table3';

export type Cell = string | number | boolean | null | undefined;

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printLine(text = ''): void {
  process.stdout.write(`${text}\n`);
}

const cell = (value: Cell): string => (value === null || value === undefined ? '-' : String(value));

/** A table with a header row; an empty list prints a note instead of an empty frame. */
export function printTable(head: string[], rows: Cell[][], empty = 'nothing to show'): void {
  if (rows.length === 0) {
    printLine(`(${empty})`);
    return;
  }
  const table = new Table({ head, style: { head: [], border: [] } });
  for (const row of rows) table.push(row.map(cell));
  printLine(table.toString());
}

/** One record as two columns, field and value. */
export function printRecord(fields: Array<[string, Cell]>): void {
  const table = new Table({ style: { head: [], border: [] } });
  for (const [name, value] of fields) table.push({ [name]: cell(value) });
  printLine(table.toString());
}

/** `$1.5` -> `$1.50`, `$0.0012345` -> `$0.0012345`: at least cents, at most micro-dollars. */
export function usd(value: number | null | undefined): string {
  if (value === null || value === undefined) return '-';
  const fixed = Math.abs(value)
    .toFixed(6)
    .replace(/0{1,4}$/, '');
  return `${value < 0 ? '-' : ''}$${fixed}`;
}

/** Unix seconds or an ISO string, shown as ISO without milliseconds. */
export function when(value: number | string | null | undefined): string {
  if (value === null || value === undefined) return '-';
  const date = typeof value === 'number' ? new Date(value * 1000) : new Date(value);
  return Number.isNaN(date.getTime()) ? String(value) : date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
