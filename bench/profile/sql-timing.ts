// Times every bun:sqlite statement by its SQL text (imported first by write-path.ts when SQL_TIMING=1).
import { Database } from "bun:sqlite";

export const sqlTimes = new Map<string, { n: number; us: number }>();
const texts = new WeakMap<object, string>();
for (const name of ["query", "prepare"] as const) {
  const original = (Database.prototype as any)[name];
  (Database.prototype as any)[name] = function (this: Database, sql: string, ...rest: unknown[]) {
    const stmt = original.call(this, sql, ...rest);
    const where = /^(COMMIT|BEGIN)/.test(sql)
      ? ` (${String((this as any).filename)
          .split("/")
          .slice(-2)
          .join("/")})`
      : "";
    if (!texts.has(stmt)) {
      texts.set(stmt, sql);
      for (const m of ["run", "get", "all", "values"]) {
        const fn = stmt[m];
        stmt[m] = function (...args: unknown[]) {
          const t0 = performance.now();
          try {
            return fn.apply(stmt, args);
          } finally {
            const key = sql.replace(/\s+/g, " ").slice(0, 140) + where;
            const e = sqlTimes.get(key) ?? { n: 0, us: 0 };
            e.n++;
            e.us += (performance.now() - t0) * 1000;
            sqlTimes.set(key, e);
          }
        };
      }
    }
    return stmt;
  };
}
const originalExec = Database.prototype.exec;
(Database.prototype as any).exec = function (this: Database, sql: string, ...rest: unknown[]) {
  const t0 = performance.now();
  try {
    return (originalExec as any).call(this, sql, ...rest);
  } finally {
    const key = `exec ${sql.slice(0, 60)}`;
    const e = sqlTimes.get(key) ?? { n: 0, us: 0 };
    e.n++;
    e.us += (performance.now() - t0) * 1000;
    sqlTimes.set(key, e);
  }
};
export function report(perOps: number) {
  const rows = [...sqlTimes].sort((a, b) => b[1].us - a[1].us).slice(0, 25);
  let total = 0;
  for (const [, v] of sqlTimes) total += v.us;
  console.log(`SQL total ${(total / perOps).toFixed(0)} µs per request`);
  for (const [k, v] of rows)
    console.log(
      `${(v.us / perOps).toFixed(1).padStart(7)} µs  ${String(v.n / perOps)
        .slice(0, 5)
        .padStart(5)}×  ${k}`,
    );
  sqlTimes.clear();
}
