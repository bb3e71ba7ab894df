/** RFC 4180 quoting; a leading =, +, - or @ is prefixed so a spreadsheet never runs a cell as a formula. */
function cell(value: string | number | null): string {
  if (value === null) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A CSV file: the header line, then one line per row, CRLF-terminated (RFC 4180). */
export function csv(columns: readonly string[], rows: readonly (readonly (string | number | null)[])[]): string {
  const lines = [columns.join(','), ...rows.map((row) => row.map(cell).join(','))];
  return `${lines.join('\r\n')}\r\n`;
}
