/** CSV as a spreadsheet opens it safely: RFC 4180 quoting, and text a spreadsheet would run as a formula made inert. */

/** A CSV cell (RFC 4180), with text that a spreadsheet would run as a formula made inert. */
export function csvCell(value: string | number): string {
  if (typeof value === 'number') return String(value)
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

/** Rows of cells as CSV lines, CRLF-terminated as RFC 4180 has them. */
export function csvLines(rows: ReadonlyArray<ReadonlyArray<string | number>>): string {
  return rows.map((row) => `${row.map(csvCell).join(',')}\r\n`).join('')
}
