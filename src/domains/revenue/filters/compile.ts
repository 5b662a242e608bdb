import { sql, type SQL } from "drizzle-orm";
import { ValidationFailed, type ValidationIssue } from "@/platform/errors";
import { centsFromNumber, hasAtMostTwoDecimals } from "@/platform/money";
import { UUID_RE } from "@/platform/ids";
import { FIELD_BY_KEY, type FieldDef, type Operator } from "@/domains/revenue/fields/registry";
import type { FilterDefinition } from "./schemas";

// A filter definition, checked against the registry and compiled into one SQL
// condition over `patients`. Every value is a bound parameter (lists travel as
// one JSON array through json_each); field expressions come only from the
// registry. Errors name the condition: loc [..., "groups", i, "conditions", j, part].

export type Compiled = { where: SQL; fields: string[] };

const RELATIVE: Partial<Record<Operator, { unit: "days" | "months"; dir: "last" | "ago" | "next" }>> = {
  in_last_days: { unit: "days", dir: "last" },
  more_than_days_ago: { unit: "days", dir: "ago" },
  in_next_days: { unit: "days", dir: "next" },
  in_last_months: { unit: "months", dir: "last" },
  more_than_months_ago: { unit: "months", dir: "ago" },
};
const MAX_LIST = 100;
const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

class BadValue extends Error {}

/** One value of the field's type, as SQL compares it (money in cents, booleans 0/1, ids lower-cased). */
function scalar(f: FieldDef, v: unknown): string | number {
  switch (f.type) {
    case "string":
      if (typeof v !== "string" || v.length > 200) throw new BadValue("a string of at most 200 characters");
      return v;
    case "number":
      if (typeof v !== "number" || !Number.isFinite(v)) throw new BadValue("a number");
      return v;
    case "money": {
      const n = typeof v === "string" && /^-?\d{1,12}(\.\d{1,2})?$/.test(v) ? Number(v) : v;
      if (typeof n !== "number" || !Number.isFinite(n) || !hasAtMostTwoDecimals(n) || Math.abs(n) > 1e12)
        throw new BadValue("an amount (a number or decimal string with at most two decimals)");
      return centsFromNumber(n);
    }
    case "date":
      if (
        typeof v !== "string" ||
        !DATE_RE.test(v) ||
        Number.isNaN(Date.parse(`${v}T00:00:00Z`)) ||
        new Date(`${v}T00:00:00Z`).toISOString().slice(0, 10) !== v
      )
        throw new BadValue("a date (YYYY-MM-DD)");
      return v;
    case "boolean":
      if (typeof v !== "boolean") throw new BadValue("true or false");
      return v ? 1 : 0;
    case "enum":
      if (typeof v !== "string" || !f.values!.includes(v)) throw new BadValue(`one of ${f.values!.join(", ")}`);
      return v;
    case "uuid":
      if (typeof v !== "string" || !UUID_RE.test(v)) throw new BadValue("a UUID");
      return v.toLowerCase();
  }
}

function list(f: FieldDef, v: unknown): (string | number)[] {
  if (!Array.isArray(v) || v.length === 0 || v.length > MAX_LIST) throw new BadValue(`a list of 1 to ${MAX_LIST} values`);
  return v.map((x) => scalar(f, x));
}

const AGE_OPS = new Set<Operator>(["eq", "neq", "gt", "gte", "lt", "lte", "between"]);

/**
 * An age condition as a range of the birth date: age >= k ⇔ born on or before
 * today - k years; age <= k ⇔ born after today - (k + 1) years. Ages are whole
 * years, so a fractional bound rounds inwards (>= 17.5 is >= 18).
 */
function ageRange(born: SQL, op: Operator, v: unknown, today: string): SQL {
  const num = (x: unknown) => {
    if (typeof x !== "number" || !Number.isFinite(x) || Math.abs(x) > 1000) throw new BadValue("a number");
    return x;
  };
  const yearsAgo = (k: number) => sql`${shift(today, { years: -k })}`;
  const atLeast = (k: number) => (k <= 0 ? sql`${born} IS NOT NULL` : sql`${born} <= ${yearsAgo(k)}`);
  const atMost = (k: number) => (k < 0 ? sql`0` : sql`${born} > ${yearsAgo(k + 1)}`);
  const both = (lo: number, hi: number) => (lo > hi ? sql`0` : sql`(${atLeast(lo)} AND ${atMost(hi)})`);
  if (op === "between") {
    if (!Array.isArray(v) || v.length !== 2) throw new BadValue("[from, to]");
    const [a, b] = [num(v[0]), num(v[1])];
    if (a > b) throw new BadValue("[from, to] with from not after to");
    return both(Math.ceil(a), Math.floor(b));
  }
  const n = num(v);
  switch (op) {
    case "gte":
      return atLeast(Math.ceil(n));
    case "gt":
      return atLeast(Math.floor(n) + 1);
    case "lte":
      return atMost(Math.floor(n));
    case "lt":
      return atMost(Math.ceil(n) - 1);
    case "eq":
      return Number.isInteger(n) ? both(n, n) : sql`0`;
    default: // neq: every patient whose age is known and differs, and those without a birth date
      return Number.isInteger(n) ? sql`NOT coalesce(${both(n, n)}, 0)` : sql`1`;
  }
}

/** `today` moved by whole days, months or years (the end of a shorter month when the day does not exist): computed once, bound as a value. */
const shift = (today: string, by: { days?: number; months?: number; years?: number }) => Temporal.PlainDate.from(today).add(by).toString();

/** The SQL of one condition; throws BadValue for a value that does not fit. */
function condition(f: FieldDef, op: Operator, v: unknown, todayStr: string): SQL {
  const today = sql`${todayStr}`;
  if (op === "is_null" || op === "is_not_null") {
    if (v !== undefined && v !== null) throw new BadValue("no value");
    if (f.kind === "set") return op === "is_null" ? sql`NOT ${f.any}` : f.any;
    const e = f.expr(today);
    return op === "is_null" ? sql`${e} IS NULL` : sql`${e} IS NOT NULL`;
  }
  if (f.kind === "set") {
    const values = JSON.stringify(list(f, v));
    return op === "in" ? f.has(sql`${values}`) : sql`NOT ${f.has(sql`${values}`)}`;
  }
  if (f.yearsSince && AGE_OPS.has(op)) return ageRange(f.yearsSince, op, v, todayStr);
  const e = f.expr(today);
  const rel = RELATIVE[op];
  if (rel) {
    if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > 36_500) throw new BadValue("a whole number from 0 to 36500");
    const back = shift(todayStr, { [rel.unit]: -v });
    if (rel.dir === "last") return sql`(${e} >= ${back} AND ${e} <= ${today})`;
    if (rel.dir === "ago") return sql`${e} < ${back}`;
    return sql`(${e} >= ${today} AND ${e} <= ${shift(todayStr, { [rel.unit]: v })})`;
  }
  const text = f.type === "string";
  const cmp = text ? sql`lower(${e})` : f.type === "boolean" ? sql`coalesce(${e}, 0)` : e;
  const one = (x: unknown) => {
    const s = scalar(f, x);
    return text ? sql`lower(${s})` : sql`${s}`;
  };
  switch (op) {
    case "eq":
      return sql`${cmp} = ${one(v)}`;
    case "neq":
      return sql`${cmp} IS NOT ${one(v)}`;
    case "gt":
      return sql`${cmp} > ${one(v)}`;
    case "gte":
      return sql`${cmp} >= ${one(v)}`;
    case "lt":
      return sql`${cmp} < ${one(v)}`;
    case "lte":
      return sql`${cmp} <= ${one(v)}`;
    case "between": {
      if (!Array.isArray(v) || v.length !== 2) throw new BadValue("[from, to]");
      const [a, b] = [scalar(f, v[0]), scalar(f, v[1])];
      if (a > b) throw new BadValue("[from, to] with from not after to");
      return sql`${cmp} BETWEEN ${a} AND ${b}`;
    }
    case "in":
    case "not_in": {
      const values = JSON.stringify(list(f, v));
      const within = text ? sql`${cmp} IN (SELECT lower(value) FROM json_each(${values}))` : sql`${cmp} IN (SELECT value FROM json_each(${values}))`;
      return op === "in" ? within : sql`(${e} IS NULL OR NOT ${within})`;
    }
    case "contains":
      return sql`instr(${cmp}, ${one(v)}) > 0`;
    case "starts_with": {
      const s = scalar(f, v) as string;
      return sql`substr(${cmp}, 1, ${[...s].length}) = lower(${s})`; // SQLite counts code points, not UTF-16 units
    }
    default:
      throw new BadValue("a value this operator takes");
  }
}

/**
 * Check `def` against the registry and compile it. `today` (YYYY-MM-DD, UTC)
 * anchors ages and relative dates. All problems are reported at once (422).
 */
export function compileFilter(def: FilterDefinition, today: string, at: (string | number)[] = ["body", "filter_definition"]): Compiled {
  const issues: ValidationIssue[] = [];
  const fields = new Set<string>();
  const groups: SQL[] = [];
  def.groups.forEach((g, i) => {
    const parts: SQL[] = [];
    g.conditions.forEach((c, j) => {
      const loc = [...at, "groups", i, "conditions", j];
      const f = FIELD_BY_KEY.get(c.field);
      if (!f) {
        issues.push({ loc: [...loc, "field"], msg: `Unknown field "${c.field.slice(0, 100)}" (see GET /revenue-module/fields)`, type: "unknown_field" });
        return;
      }
      if (!f.operators.includes(c.operator as Operator)) {
        issues.push({ loc: [...loc, "operator"], msg: `Field ${f.key} takes the operators ${f.operators.join(", ")}`, type: "operator_not_allowed" });
        return;
      }
      try {
        parts.push(condition(f, c.operator as Operator, c.value, today));
        fields.add(f.key);
      } catch (err) {
        if (!(err instanceof BadValue)) throw err;
        issues.push({ loc: [...loc, "value"], msg: `${f.key} ${c.operator} takes ${err.message}`, type: "value_error" });
      }
    });
    groups.push(sql`(${sql.join(parts, sql` AND `)})`);
  });
  if (issues.length) throw new ValidationFailed(issues);
  return { where: sql`(${sql.join(groups, sql` OR `)})`, fields: [...fields] };
}
