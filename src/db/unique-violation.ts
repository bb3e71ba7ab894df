/**
 * Whether `err` is a unique-key violation of `table` on `column`: pg reports SQLSTATE 23505 with the constraint's
 * name (given to match), SQLite a message naming `table.column`.
 */
export function isUniqueViolation(err: unknown, constraint: string, tableColumn: string): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, constraint: hit, message } = err as { code?: unknown; constraint?: unknown; message?: unknown };
  if (code === '23505') return hit === constraint;
  const sqliteUnique = code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
  return sqliteUnique && typeof message === 'string' && message.includes(tableColumn);
}
