import { and, eq, inArray, isNull, or, sql, type SQL } from "drizzle-orm";
import { insuranceCarriers, insurancePlans, type DraftCandidates } from "@db/tenant/insurance";
import { patients } from "@db/tenant/patients";
import { all, get, type Work } from "@/platform/db/work";
import type { TenantDb } from "@/platform/records/context";
import { ftsRowids } from "@/platform/records/search";
import { nameMatch } from "@/domains/patients/record/search";
import { readRow, type DraftFields, type Relationship } from "./row";

// Matching one draft's raw row to a carrier, a plan and a subscriber (docs/insurance/insurance-drafts.md,
// "Matching"). A unit of work over the org's database: the matching job runs it for a batch of
// drafts inside one write, a rematch for one draft; `MatchMemo` answers repeated lookups of a batch.

export type MatchStatus = "matched" | "pending" | "error";

export type MatchOutcome = {
  review_status: MatchStatus;
  matched_carrier_id: string | null;
  matched_plan_id: string | null;
  subscriber_patient_id: string | null;
  candidates: DraftCandidates;
  conversion_error: string | null;
};

/** At most this many candidates of each kind. */
export const MAX_CANDIDATES = 10;

type Candidate = DraftCandidates["carriers"][number];
type CarrierHit = { id: string; carrier_name: string };
type PlanHit = { id: string; carrier_id: string; plan_name: string | null; group_name: string | null; group_number: string | null };
type PersonHit = { id: string; first_name: string; last_name: string; date_of_birth: string | null };

/** Lookups already answered in this unit of work (one batch): rows of one import usually repeat carriers, plans and subscribers. */
export class MatchMemo {
  private readonly answers = new Map<string, unknown>();

  *once<T>(key: string, work: () => Work<T>): Work<T> {
    if (this.answers.has(key)) return this.answers.get(key) as T;
    const value = yield* work();
    this.answers.set(key, value);
    return value;
  }
}

const same = (a: string | null | undefined, b: string | null | undefined) => !!a && !!b && a.toLowerCase() === b.toLowerCase();
const nocase = (col: unknown, value: string) => sql`${col} = ${value} COLLATE NOCASE`;
/** `%` and `_` in a LIKE pattern taken literally. */
const likeText = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);
const planName = (p: PlanHit) => p.plan_name ?? p.group_name ?? p.group_number;
const personName = (p: PersonHit) => `${p.first_name} ${p.last_name}`;

function addCandidates(list: Candidate[], hits: { id: string; name: string | null }[], reason: string): void {
  for (const h of hits) {
    if (list.length >= MAX_CANDIDATES) return;
    if (!list.some((c) => c.id === h.id)) list.push({ id: h.id, name: h.name ?? "", reason });
  }
}

// ---- carriers ---------------------------------------------------------------------------

const c = insuranceCarriers;
const CARRIER_COLUMNS = { id: c.id, carrier_name: c.carrier_name };

function carriersWhere(db: TenantDb, where: SQL, limit = MAX_CANDIDATES + 1): Work<CarrierHit[]> {
  return all<CarrierHit>(
    db
      .select(CARRIER_COLUMNS)
      .from(c)
      .where(and(isNull(c.deleted_at), where))
      .orderBy(sql`${c.carrier_name} COLLATE NOCASE`, c.id)
      .limit(limit),
  );
}

type CarrierFound = { id: string | null; candidates: Candidate[] };

/** By electronic id (any case) when one carrier has it (several: the one among them with the row's name), else by name (any case). */
function* findCarrier(db: TenantDb, f: DraftFields, memo: MatchMemo): Work<CarrierFound> {
  const candidates: Candidate[] = [];
  if (f.electronic_id) {
    const eid = f.electronic_id;
    const byEid = yield* memo.once(`carrier.eid:${eid.toLowerCase()}`, () => carriersWhere(db, nocase(c.electronic_id, eid)));
    if (byEid.length === 1) return { id: byEid[0]!.id, candidates };
    if (byEid.length > 1) {
      const named = byEid.filter((h) => same(h.carrier_name, f.carrier_name));
      if (named.length === 1) return { id: named[0]!.id, candidates };
      addCandidates(candidates, (named.length ? named : byEid).map(asCarrier), "electronic_id");
      return { id: null, candidates };
    }
  }
  if (f.carrier_name) {
    const name = f.carrier_name;
    const byName = yield* memo.once(`carrier.name:${name.toLowerCase()}`, () => carriersWhere(db, nocase(c.carrier_name, name)));
    if (byName.length === 1) return { id: byName[0]!.id, candidates };
    if (byName.length > 1) {
      addCandidates(candidates, byName.map(asCarrier), "name");
      return { id: null, candidates };
    }
    // one name inside the other, any case: "Delta Dental" and "Delta Dental of California"
    const similar = yield* memo.once(`carrier.similar:${name.toLowerCase()}`, () =>
      carriersWhere(db, sql`(${c.carrier_name} LIKE ${`%${likeText(name)}%`} ESCAPE '\\' OR ${name} LIKE '%' || ${c.carrier_name} || '%')`, MAX_CANDIDATES),
    );
    addCandidates(candidates, similar.map(asCarrier), "similar_name");
  }
  return { id: null, candidates };
}

const asCarrier = (h: CarrierHit) => ({ id: h.id, name: h.carrier_name });

// ---- plans ------------------------------------------------------------------------------

const p = insurancePlans;
const PLAN_COLUMNS = { id: p.id, carrier_id: p.carrier_id, plan_name: p.plan_name, group_name: p.group_name, group_number: p.group_number };

function plansWhere(db: TenantDb, ...where: (SQL | undefined)[]): Work<PlanHit[]> {
  return all<PlanHit>(
    db
      .select(PLAN_COLUMNS)
      .from(p)
      .where(and(isNull(p.deleted_at), ...where))
      .orderBy(p.id)
      .limit(MAX_CANDIDATES + 1),
  );
}

/** A group number as stored in any of its usual cases: the equality stays on insurance_plans_group_number_idx. */
const groupNumberIs = (g: string) => inArray(p.group_number, [...new Set([g, g.toUpperCase(), g.toLowerCase()])]);
const asPlan = (h: PlanHit) => ({ id: h.id, name: planName(h) });

type PlanFound = { id: string | null; candidates: Candidate[]; carrierHints: Candidate[] };

/**
 * Among the carrier's live plans: by group number (any case; several: the one among them with the
 * row's group name), else by group name when the row has no group number. Without a carrier, the
 * plans anywhere with the row's group number are offered, and their carriers with them.
 */
function* findPlan(db: TenantDb, f: DraftFields, carrierId: string | null, carrierCandidates: Candidate[], memo: MatchMemo): Work<PlanFound> {
  const candidates: Candidate[] = [];
  const carrierHints: Candidate[] = [];
  const gn = f.group_number;
  if (!carrierId) {
    if (gn) {
      const hits = yield* memo.once(`plan.group:${gn.toLowerCase()}`, () => plansWhere(db, groupNumberIs(gn)));
      const exact = hits.filter((h) => same(h.group_number, gn));
      const known = carrierCandidates.length ? exact.filter((h) => carrierCandidates.some((cc) => cc.id === h.carrier_id)) : exact;
      addCandidates(candidates, known.map(asPlan), "group_number");
      if (!carrierCandidates.length && exact.length) {
        const names = yield* memo.once(`carrier.ids:${exact.map((h) => h.carrier_id).join(",")}`, () =>
          carriersWhere(db, sql`${c.id} IN (SELECT value FROM json_each(${JSON.stringify(exact.map((h) => h.carrier_id))}))`),
        );
        addCandidates(carrierHints, names.map(asCarrier), "plan_group_number");
      }
    }
    return { id: null, candidates, carrierHints };
  }
  if (gn) {
    const hits = (yield* memo.once(`plan.carrier-group:${carrierId}:${gn.toLowerCase()}`, () =>
      plansWhere(db, eq(p.carrier_id, carrierId), groupNumberIs(gn)),
    )).filter((h) => same(h.group_number, gn));
    if (hits.length === 1) return { id: hits[0]!.id, candidates, carrierHints };
    if (hits.length > 1) {
      const named = hits.filter((h) => same(h.group_name, f.group_name));
      if (named.length === 1) return { id: named[0]!.id, candidates, carrierHints };
      addCandidates(candidates, (named.length ? named : hits).map(asPlan), "group_number");
      return { id: null, candidates, carrierHints };
    }
  } else if (f.group_name) {
    const name = f.group_name;
    const hits = yield* memo.once(`plan.carrier-name:${carrierId}:${name.toLowerCase()}`, () =>
      plansWhere(db, eq(p.carrier_id, carrierId), nocase(p.group_name, name)),
    );
    if (hits.length === 1) return { id: hits[0]!.id, candidates, carrierHints };
    addCandidates(candidates, hits.map(asPlan), "group_name");
    if (hits.length) return { id: null, candidates, carrierHints };
  }
  const ofCarrier = yield* memo.once(`plan.carrier:${carrierId}`, () => plansWhere(db, eq(p.carrier_id, carrierId)));
  addCandidates(candidates, ofCarrier.map(asPlan), "carrier_plan");
  return { id: null, candidates, carrierHints };
}

// ---- subscriber -------------------------------------------------------------------------

const pt = patients;
const PERSON_COLUMNS = { id: pt.id, first_name: pt.first_name, last_name: pt.last_name, date_of_birth: pt.date_of_birth };

function peopleWhere(db: TenantDb, ...where: (SQL | undefined)[]): Work<PersonHit[]> {
  return all<PersonHit>(
    db
      .select(PERSON_COLUMNS)
      .from(pt)
      .where(and(isNull(pt.deleted_at), ...where))
      .orderBy(pt.last_name, pt.first_name, pt.id)
      .limit(MAX_CANDIDATES + 1),
  );
}

/** Patients whose first and last names are these (any case), found through the name index (patients_fts). */
function* byNames(db: TenantDb, first: string, last: string, memo: MatchMemo): Work<PersonHit[]> {
  const match = nameMatch(`${last}, ${first}`);
  if (!match) return [];
  return yield* memo.once(`person.names:${first.toLowerCase()}|${last.toLowerCase()}`, () =>
    peopleWhere(db, sql`${pt}.rowid IN (${ftsRowids(db, "patients_fts", match)})`, nocase(pt.first_name, first), nocase(pt.last_name, last)),
  );
}

type SubscriberFound = { id: string | null; candidates: Candidate[]; relationship: Relationship | null; problems: string[] };

/**
 * The subscriber: the draft's patient when the row names no subscriber (and the relationship is
 * self or not given) or says self; otherwise the one live patient with the row's first and last
 * names (any case) and date of birth. Then the relationship must agree with who was found.
 */
function* findSubscriber(db: TenantDb, f: DraftFields, patient: PersonHit, memo: MatchMemo): Work<SubscriberFound> {
  const candidates: Candidate[] = [];
  const problems: string[] = [];
  const first = f.subscriber_first_name;
  const last = f.subscriber_last_name;
  const dob = f.subscriber_date_of_birth;
  let id: string | null = null;
  if (!first && !last && !dob) {
    if (f.relationship && f.relationship !== "self")
      problems.push("subscriber_first_name, subscriber_last_name and subscriber_date_of_birth are required when the relationship is not self");
    else id = patient.id;
  } else if (f.relationship === "self") {
    // the row describes the patient as their own subscriber: its names and date of birth must be the patient's
    const agrees =
      (!first || same(first, patient.first_name)) &&
      (!last || same(last, patient.last_name)) &&
      (!dob || !patient.date_of_birth || dob === patient.date_of_birth);
    if (agrees) id = patient.id;
    else addCandidates(candidates, [{ id: patient.id, name: personName(patient) }], "relationship_self");
  } else if (first && last && dob) {
    const exact = yield* memo.once(`person.exact:${first.toLowerCase()}|${last.toLowerCase()}|${dob}`, () =>
      peopleWhere(db, eq(pt.date_of_birth, dob), nocase(pt.first_name, first), nocase(pt.last_name, last)),
    );
    if (exact.length === 1) id = exact[0]!.id;
    else if (exact.length > 1) addCandidates(candidates, exact.map(asPerson), "name_and_date_of_birth");
    else {
      const sameBirth = yield* memo.once(`person.dob:${first.toLowerCase()}|${last.toLowerCase()}|${dob}`, () =>
        peopleWhere(db, eq(pt.date_of_birth, dob), or(nocase(pt.first_name, first), nocase(pt.last_name, last))),
      );
      addCandidates(candidates, sameBirth.map(asPerson), "date_of_birth");
      addCandidates(candidates, (yield* byNames(db, first, last, memo)).map(asPerson), "name");
    }
  } else if (first && last) {
    addCandidates(candidates, (yield* byNames(db, first, last, memo)).map(asPerson), "name");
  } else if (dob && (first || last)) {
    const name = (first ?? last)!;
    const hits = yield* memo.once(`person.dob-name:${name.toLowerCase()}|${dob}`, () =>
      peopleWhere(db, eq(pt.date_of_birth, dob), or(nocase(pt.first_name, name), nocase(pt.last_name, name))),
    );
    addCandidates(candidates, hits.map(asPerson), "date_of_birth");
  }
  let relationship = f.relationship;
  if (id === patient.id) {
    if (relationship && relationship !== "self") problems.push(`relationship is ${relationship} but the subscriber is the patient`);
    relationship = "self";
  } else if (id && !relationship) {
    problems.push("relationship is required when the subscriber is not the patient");
  }
  return { id, candidates, relationship, problems };
}

const asPerson = (h: PersonHit) => ({ id: h.id, name: personName(h) });

function* patientOf(db: TenantDb, id: string, memo: MatchMemo): Work<PersonHit> {
  return yield* memo.once(`patient:${id}`, function* () {
    const row = yield* get<PersonHit>(db.select(PERSON_COLUMNS).from(pt).where(eq(pt.id, id)));
    return row ?? { id, first_name: "", last_name: "", date_of_birth: null };
  });
}

// ---- the draft ---------------------------------------------------------------------------

const NO_CANDIDATES = (): DraftCandidates => ({ carriers: [], plans: [], patients: [] });

/**
 * Match one draft: `error` when the row is unusable (conversion_error says why), `matched` when
 * carrier, plan and subscriber are each found exactly once, `pending` with candidates otherwise.
 */
export function* matchDraft(db: TenantDb, draft: { patient_id: string; raw_data_json: Record<string, unknown> }, memo = new MatchMemo()): Work<MatchOutcome> {
  const { fields, problems } = readRow(draft.raw_data_json);
  if (problems.length)
    return {
      review_status: "error",
      matched_carrier_id: null,
      matched_plan_id: null,
      subscriber_patient_id: null,
      candidates: NO_CANDIDATES(),
      conversion_error: problems.join("; "),
    };
  const carrier = yield* findCarrier(db, fields, memo);
  const plan = yield* findPlan(db, fields, carrier.id, carrier.candidates, memo);
  const subscriber = yield* findSubscriber(db, fields, yield* patientOf(db, draft.patient_id, memo), memo);
  const carriers = [...carrier.candidates];
  addCandidates(
    carriers,
    plan.carrierHints.map((h) => ({ id: h.id, name: h.name })),
    "plan_group_number",
  );
  const found = !!(carrier.id && plan.id && subscriber.id);
  return {
    review_status: subscriber.problems.length ? "error" : found ? "matched" : "pending",
    matched_carrier_id: carrier.id,
    matched_plan_id: plan.id,
    subscriber_patient_id: subscriber.id,
    candidates: { carriers, plans: plan.candidates, patients: subscriber.candidates },
    conversion_error: subscriber.problems.length ? subscriber.problems.join("; ") : null,
  };
}

/** The relationship a matched draft converts with (the patient plan's): self for the patient's own card. */
export function relationshipOf(draft: {
  patient_id: string;
  subscriber_patient_id: string | null;
  raw_data_json: Record<string, unknown>;
}): Relationship | null {
  if (draft.subscriber_patient_id === draft.patient_id) return "self";
  return readRow(draft.raw_data_json).fields.relationship;
}
