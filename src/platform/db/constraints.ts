import { Conflict } from "@/platform/errors";

// SQLite reports a failed unique constraint by its columns, e.g.
// "UNIQUE constraint failed: orgs.slug" (bun:sqlite: code SQLITE_CONSTRAINT_UNIQUE;
// libSQL: SQLITE_CONSTRAINT, the same text). Domains declare what such a
// conflict means to a client; the error mapper (platform/http/errors.ts) answers it.
const declared = new Map<string, { message: string; code: string }>();
const UNIQUE = /UNIQUE constraint failed: ([^\n]+)/;

/** The 409 a write answers when it runs into this unique constraint (columns as SQLite names them: "table.column, table.column"). */
export function declareUniqueConflict(columns: string, message: string, code = "duplicate"): void {
  declared.set(columns, { message, code });
}

/** A unique-constraint failure (itself or a cause of the error) as the 409 it means; null for any other error. */
export function uniqueConflictOf(error: unknown): Conflict | null {
  let e = error as { code?: unknown; extendedCode?: unknown; message?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; e && typeof e === "object" && depth < 4; depth++, e = e.cause as typeof e) {
    const codes = `${e.code ?? ""} ${e.extendedCode ?? ""}`;
    const m = typeof e.message === "string" && codes.includes("SQLITE_CONSTRAINT") ? UNIQUE.exec(e.message) : null;
    if (m) {
      const known = declared.get(m[1]!.trim());
      return new Conflict(known?.message ?? "A record with these values already exists", known?.code ?? "duplicate");
    }
  }
  return null;
}
