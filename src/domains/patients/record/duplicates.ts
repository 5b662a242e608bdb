import { and, asc, desc, eq, isNull, ne, or, sql } from "drizzle-orm";
import { inJsonList } from "@/platform/db/in-list";
import { patients } from "@db/tenant/patients";
import { patientDuplicates } from "@db/tenant/duplicates";
import { all, allPrepared, run, type Work } from "@/platform/db/work";
import { preparedRows } from "./rows";
import type { TenantDb } from "@/platform/records/context";
import { ftsRowids } from "@/platform/records/search";

// Potential duplicates (docs/patients/patients.md, "Potential duplicates"). Computed when
// a patient is created or its names, date of birth or phones change, and stored
// in both directions, so reading a patient's candidates is one primary-key
// range read (GET by id is a benchmarked hot path: no searching there).

export type DuplicateReason = "same_date_of_birth" | "same_phone" | "same_name" | "similar_name";
export type PotentialDuplicate = {
  uuid: string;
  first_name: string;
  last_name: string;
  date_of_birth: string | null;
  reasons: DuplicateReason[];
  score: number;
};
type Person = { id: string; first_name: string; last_name: string; date_of_birth: string | null; phone_digits: string | null };

/** Lower case, accents and everything but letters and digits removed: "O'Brien-Núñez" -> "obriennunez". */
export const normalizeName = (s: string) =>
  s
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, "");

/** Levenshtein distance, giving up (returning max + 1) once it exceeds `max`. */
export function editDistance(a: string, b: string, max = Infinity): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      best = Math.min(best, cur[j]!);
    }
    if (best > max) return max + 1;
    prev = cur;
  }
  return prev[b.length]!;
}

/** Typos allowed between two names: none below 3 letters, 1 from 3, 2 from 5 (so "Al" and "Ed" stay apart). */
const allowedEdits = (a: string, b: string) => {
  const n = Math.min(a.length, b.length);
  return n >= 5 ? 2 : n >= 3 ? 1 : 0;
};
const close = (a: string, b: string) => editDistance(a, b, allowedEdits(a, b)) <= allowedEdits(a, b);

/** same_name, similar_name or null. First names also match by prefix ("Jo" / "Johanna", an initial). */
export function nameSimilarity(a: Pick<Person, "first_name" | "last_name">, b: Pick<Person, "first_name" | "last_name">): "same_name" | "similar_name" | null {
  const [af, al, bf, bl] = [a.first_name, a.last_name, b.first_name, b.last_name].map(normalizeName) as [string, string, string, string];
  if (!al || !bl) return null;
  if (af === bf && al === bl) return "same_name";
  const firstSimilar = !!af && !!bf && (af.startsWith(bf) || bf.startsWith(af) || close(af, bf));
  if (al === bl && firstSimilar) return "similar_name";
  if (af && af === bf && close(al, bl)) return "similar_name";
  if (af && af === bl && al === bf) return "similar_name"; // first and last swapped
  return null;
}

/** Phone numbers worth comparing: 7+ digits (the +1 national forms are listed in phone_digits too). */
export const phoneTokens = (digits: string | null) => (digits ?? "").split(" ").filter((d) => d.length >= 7);

const SCORE = { same_date_of_birth: 40, same_phone: 30, same_name: 30, similar_name: 15 } as const;

/**
 * Two records look like one person when their names are similar and they share
 * the date of birth or a phone number. Two known, different dates of birth
 * rule it out (a parent and child sharing a home phone and a name).
 */
export function duplicateMatch(a: Person, b: Person): { reasons: DuplicateReason[]; score: number } | null {
  const name = nameSimilarity(a, b);
  if (!name) return null;
  const reasons: DuplicateReason[] = [];
  if (a.date_of_birth && b.date_of_birth) {
    if (a.date_of_birth !== b.date_of_birth) return null;
    reasons.push("same_date_of_birth");
  }
  const theirs = new Set(phoneTokens(b.phone_digits));
  if (phoneTokens(a.phone_digits).some((d) => theirs.has(d))) reasons.push("same_phone");
  if (!reasons.length) return null;
  reasons.push(name);
  return { reasons, score: reasons.reduce((s, r) => s + SCORE[r], 0) };
}

/** Candidates looked at per lookup: a date of birth or phone shared by more is not telling anything. */
const CANDIDATE_LIMIT = 500;
const personColumns = {
  id: patients.id,
  first_name: patients.first_name,
  last_name: patients.last_name,
  date_of_birth: patients.date_of_birth,
  phone_digits: patients.phone_digits,
};

/**
 * Recompute the pairs of `p` (both directions) inside the write that changed it.
 * Archived patients are paired too and hidden when read, so a restore brings
 * their pairs back without recomputing.
 */
export function* refreshDuplicates(tx: TenantDb, p: Person): Work<void> {
  yield* run(tx.delete(patientDuplicates).where(or(eq(patientDuplicates.patient_id, p.id), eq(patientDuplicates.duplicate_id, p.id))));
  const seen = new Map<string, Person>();
  if (p.date_of_birth) {
    for (const c of yield* all(
      tx
        .select(personColumns)
        .from(patients)
        .where(and(eq(patients.date_of_birth, p.date_of_birth), ne(patients.id, p.id)))
        .limit(CANDIDATE_LIMIT),
    ))
      seen.set(c.id, c);
  }
  const tokens = phoneTokens(p.phone_digits);
  // the 11-digit +1 form contains the 10-digit one: search the shorter only
  for (const d of tokens.filter((t) => !tokens.some((o) => o !== t && t.includes(o)))) {
    const rows = sql`(${ftsRowids(tx, "patients_contact_fts", `phone_digits : "${d}"`)})`;
    for (const c of yield* all(
      tx
        .select(personColumns)
        .from(patients)
        .where(and(sql`${patients}.rowid IN ${rows}`, ne(patients.id, p.id)))
        .limit(CANDIDATE_LIMIT),
    ))
      seen.set(c.id, c);
  }
  const pairs = [];
  for (const c of seen.values()) {
    const m = duplicateMatch(p, c);
    if (m) pairs.push({ patient_id: p.id, duplicate_id: c.id, ...m }, { patient_id: c.id, duplicate_id: p.id, ...m });
  }
  if (pairs.length) yield* run(tx.insert(patientDuplicates).values(pairs));
}

/** Fields whose change recomputes the pairs. */
export const DUPLICATE_INPUTS = ["first_name", "last_name", "date_of_birth", "phone_digits"] as const;

const selectDuplicates = (db: any, where: ReturnType<typeof sql>) =>
  db
    .select({
      of: patientDuplicates.patient_id,
      uuid: patients.id,
      first_name: patients.first_name,
      last_name: patients.last_name,
      date_of_birth: patients.date_of_birth,
      reasons: patientDuplicates.reasons,
      score: patientDuplicates.score,
    })
    .from(patientDuplicates)
    .innerJoin(patients, eq(patients.id, patientDuplicates.duplicate_id))
    .where(and(where, isNull(patients.deleted_at)))
    .orderBy(desc(patientDuplicates.score), asc(patients.last_name), asc(patients.first_name), asc(patients.id))
    .prepare();

type DuplicateRow = PotentialDuplicate & { of: string };
// decoded from value arrays on local files, like rows.ts (GET by id runs this on every read)
const decode = (v: unknown[]): DuplicateRow => ({
  of: v[0] as string,
  uuid: v[1] as string,
  first_name: v[2] as string,
  last_name: v[3] as string,
  date_of_birth: v[4] as string | null,
  reasons: JSON.parse(v[5] as string),
  score: v[6] as number,
});
const ofOne = preparedRows<DuplicateRow>((db) => selectDuplicates(db, sql`${patientDuplicates.patient_id} = ${sql.placeholder("id")}`), decode);
const ofMany = preparedRows<DuplicateRow>((db) => selectDuplicates(db, inJsonList(patientDuplicates.patient_id, "ids")), decode);

/** The non-archived potential duplicates of each patient id: one indexed query for any number of patients. */
export function* duplicatesOf(db: TenantDb, ids: string[]): Work<Map<string, PotentialDuplicate[]>> {
  const out = new Map<string, PotentialDuplicate[]>();
  if (!ids.length) return out;
  const rows = ids.length === 1 ? yield* allPrepared(db, ofOne, { id: ids[0] }) : yield* allPrepared(db, ofMany, { ids: JSON.stringify(ids) });
  for (const { of, ...d } of rows) {
    const list = out.get(of);
    if (list) list.push(d as PotentialDuplicate);
    else out.set(of, [d as PotentialDuplicate]);
  }
  return out;
}
