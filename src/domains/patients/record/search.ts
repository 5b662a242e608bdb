import { sql, type SQL } from "drizzle-orm";
import { patients } from "@db/tenant/patients";
import { allWordPrefixes, ftsRowids, wordTokens } from "@/platform/records/search";
import { ftsLookupOf } from "@/platform/db/search-index";
import type { NameIndex } from "./name-index";

// The patient search box. A term is read as whichever of these it can be, and
// every reading is answered from an index (migration 0002 and the patients
// indexes), so a search never scans the table:
//   date of birth  YYYY-MM-DD or MM/DD/YYYY          patients_dob_idx
//   phone          digits and phone punctuation only  patients_contact_fts (trigram: digits anywhere in a phone)
//   chart number   the exact term                     patients_chart_idx
//   email          a substring, 3+ characters         patients_contact_fts
//   name           word prefixes, "First Last" or "Last, First"   the org's in-memory name index
//                  (name-index.ts, the same answers); patients_fts on a replicated database

const PHONE_LIKE = /^[\d\s().+\-]+$/;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const US_DATE = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/;

/** The digits of every phone, space separated: what phone search matches (the `phone_digits` column). */
export function phoneDigits(...phones: (string | null | undefined)[]): string | null {
  const out: string[] = [];
  for (const p of phones) {
    const d = (p ?? "").replace(/\D/g, "");
    if (!d) continue;
    out.push(d);
    // +1 (NANP) numbers are also findable by their 10-digit national form
    if (d.length === 11 && d.startsWith("1")) out.push(d.slice(1));
  }
  return out.length ? [...new Set(out)].join(" ") : null;
}

/** YYYY-MM-DD for a real calendar date written either way, else null. */
export function parseSearchDate(term: string): string | null {
  let y: number, m: number, d: number;
  const iso = ISO_DATE.exec(term);
  const us = US_DATE.exec(term);
  if (iso) [y, m, d] = [Number(iso[1]), Number(iso[2]), Number(iso[3])];
  else if (us) [y, m, d] = [Number(us[3]), Number(us[1]), Number(us[2])];
  else return null;
  const date = new Date(Date.UTC(y, m - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) return null;
  return `${String(y).padStart(4, "0")}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`;
}

/** Words as the FTS tokenizer (unicode61) sees them: runs of letters and digits. */
export const nameTokens = wordTokens;
const prefixes = allWordPrefixes;
/** An FTS5 string literal: the text in double quotes, inner quotes doubled. */
const phrase = (s: string) => `"${s.replace(/"/g, '""')}"`;

/** The FTS5 query for a name term, or null when it has no words. */
export function nameMatch(term: string): string | null {
  const comma = term.indexOf(",");
  if (comma >= 0) {
    const last = nameTokens(term.slice(0, comma));
    const first = nameTokens(term.slice(comma + 1));
    const parts: string[] = [];
    if (last.length) parts.push(`last_name : (${prefixes(last)})`);
    if (first.length) parts.push(`{first_name preferred_name} : (${prefixes(first)})`);
    if (parts.length) return parts.join(" AND ");
  }
  const words = nameTokens(term);
  return words.length ? prefixes(words) : null;
}

/** Whether a term is read as a name at all (not a date, not phone-like): only then is the name index asked. */
export const hasNameReading = (raw: string) => {
  const term = raw.trim();
  return !parseSearchDate(term) && !PHONE_LIKE.test(term) && nameTokens(term).length > 0;
};

/** How a value enters a statement: inline (a one-off query) or as a named placeholder (a prepared one). */
export type Bind = (value: unknown) => SQL;
export const inline: Bind = (value) => sql`${value}`;

/**
 * The index lookups a search term is read as, and `key`, naming which ones
 * they are: the SQL text depends only on the key, never on the term itself,
 * so one prepared statement serves every term of a key. A term that can be
 * none of the readings gives an empty set. `handle`: the org database, whose
 * full-text lookups may be answered outside it (a replicated one: its key starts with "j").
 * `names`: the org's name index, caught up, which answers the name reading
 * (its rowids bound as one JSON list: key "m" rather than "n").
 */
export function searchSets(raw: string, bind: Bind = inline, handle?: unknown, names?: NameIndex): { key: string; sets: SQL[] } {
  const term = raw.trim();
  const sets: SQL[] = [];
  let key = ftsLookupOf(handle) ? "j" : "";
  const dob = parseSearchDate(term);
  if (dob) {
    key += "d";
    sets.push(sql`SELECT rowid FROM ${patients} WHERE ${patients.date_of_birth} = ${bind(dob)}`);
  } else {
    key += "c";
    sets.push(sql`SELECT rowid FROM ${patients} WHERE ${patients.chart_number} IN (${bind(term)}, ${bind(term.toUpperCase())}, ${bind(term.toLowerCase())})`);
    if (PHONE_LIKE.test(term)) {
      let digits = term.replace(/\D/g, "");
      if (digits.length === 11 && digits.startsWith("1")) digits = digits.slice(1);
      if (digits.length >= 3) {
        key += "p";
        sets.push(ftsRowids(handle, "patients_contact_fts", `phone_digits : ${phrase(digits)}`, bind));
      }
    } else {
      if (term.length >= 3 && !/\s/.test(term)) {
        key += "e";
        sets.push(ftsRowids(handle, "patients_contact_fts", `email : ${phrase(term)}`, bind));
      }
      const rowids = names?.match(term);
      if (rowids) {
        key += "m";
        sets.push(sql`SELECT value AS rowid FROM json_each(${bind(JSON.stringify(rowids))})`);
      } else if (!names) {
        const match = nameMatch(term);
        if (match) {
          key += "n";
          sets.push(ftsRowids(handle, "patients_fts", match, bind));
        }
      }
    }
  }
  return { key, sets };
}

/**
 * The rowids of the patients a search term matches, as parenthesised unions of
 * index lookups: `rows` for `patients.rowid IN <rows>` (duplicates are
 * harmless there), `distinct` to count them. A term that can be none of the
 * readings gives an empty set.
 */
export function searchCondition(raw: string, bind: Bind = inline, handle?: unknown, names?: NameIndex): { key: string; sets: SQL[]; rows: SQL; distinct: SQL } {
  const { key, sets } = searchSets(raw, bind, handle, names);
  return { key, sets, rows: sql`(${sql.join(sets, sql` UNION ALL `)})`, distinct: sql`(${sql.join(sets, sql` UNION `)})` };
}
