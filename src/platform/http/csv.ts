/** CSV as spreadsheets read it (RFC 4180, CRLF line ends), for every export. */

const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One CSV cell. Cells a spreadsheet would run as a formula get a leading
 * single quote (OWASP CSV injection guidance).
 */
export function csvCell(value: string | null | undefined): string {
  if (value === null || value === undefined) return "";
  let v = String(value);
  if (FORMULA_START.test(v)) v = `'${v}`;
  return /[",\r\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v;
}

/** One CSV line of cells, each escaped. */
export const csvLine = (cells: readonly (string | null | undefined)[]) => `${cells.map(csvCell).join(",")}\r\n`;
