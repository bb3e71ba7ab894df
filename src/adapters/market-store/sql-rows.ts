/** Reading and writing the market store's rows (sql.ts, sql-volumes.ts): both drivers' column values, one way. */
export type Row = Record<string, unknown>;

export const num = (v: unknown): number => Number(v);
export const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
export const big = (v: unknown): bigint => BigInt(v as number | string | bigint);

/** The columns of the fields given (bigints as text, which both drivers take for int8). */
export function rowOf<T extends object>(record: Partial<T>, columns: Partial<Record<keyof T, string>>): Row {
  const row: Row = {};
  for (const [key, column] of Object.entries(columns) as [keyof T, string][]) {
    const value = record[key];
    if (value !== undefined) row[column] = typeof value === 'bigint' ? value.toString() : value;
  }
  return row;
}
