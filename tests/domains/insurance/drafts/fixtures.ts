import { and, count, eq, sql } from "drizzle-orm";
import { insuranceDrafts } from "@db/tenant/insurance";
import { auditEntries } from "@db/tenant/audit";
import { all, get } from "@/platform/db/work";
import { systemActor } from "@/platform/auth/actor";
import draftsMatchJob from "@/domains/insurance/drafts/drafts-match.handler";
import type { TestApp } from "@tests/helpers";
import { orgDb } from "@tests/domains/patients/record/fixtures";

// Shared by the drafts tests: setting up carriers, plans and patients through their APIs, running
// the matching job's handler, and reading drafts straight from the org's database.

export const MISSING = "01970000-0000-7000-8000-0000000000dd";
export { orgDb };

/** POST that must succeed with 201; answers the body. */
export async function created(t: TestApp, token: string, path: string, body: Record<string, unknown>) {
  const r = await t.request("POST", path, { token, body });
  if (r.status !== 201) throw new Error(`POST ${path} failed: ${r.status} ${r.text}`);
  return r.body;
}

/** The insurance path of an org. */
export const insurancePath = (orgId: string) => `/api/v1/${orgId}/insurance`;

export const carrier = (t: TestApp, token: string, orgId: string, carrier_name: string, electronic_id?: string) =>
  created(t, token, `${insurancePath(orgId)}/carriers`, { carrier_name, ...(electronic_id ? { electronic_id } : {}) });

export const plan = (t: TestApp, token: string, orgId: string, carrierId: string, fields: Record<string, unknown>) =>
  created(t, token, `${insurancePath(orgId)}/plans`, { carrier_uuid: carrierId, ...fields });

export const patient = (
  t: TestApp,
  token: string,
  orgId: string,
  first_name: string,
  last_name: string,
  date_of_birth?: string,
  extra: Record<string, unknown> = {},
) => created(t, token, `/api/v1/${orgId}/patients`, { first_name, last_name, ...(date_of_birth ? { date_of_birth } : {}), ...extra });

/** Run the matching job's handler for an import, as a worker would (system actor, the request's id). */
export async function runMatchJob(t: TestApp, orgId: string, importId: string, patientId: string) {
  return draftsMatchJob({
    rt: t.rt,
    payload: { import_id: importId, patient_id: patientId },
    logger: t.rt.logger,
    actor: systemActor("insurance.drafts-match"),
    causedBy: { type: "user", id: "u-test", display_name: "Test" },
    orgId,
    requestId: "req-drafts-test",
    job: { id: "test", name: "insurance.drafts-match", retryCount: 0 },
  });
}

/** The stored drafts of an import, in row order. */
export async function draftRows(t: TestApp, orgId: string, importId: string) {
  const t2 = insuranceDrafts;
  return (await orgDb(t, orgId)).read((d) => all<any>(d.select().from(t2).where(eq(t2.import_id, importId)).orderBy(t2.id)));
}

/** How many drafts of an import the job has attempted. */
export async function attemptedCount(t: TestApp, orgId: string, importId: string) {
  const t2 = insuranceDrafts;
  const row = await (await orgDb(t, orgId)).read((d) =>
    get<{ n: number }>(
      d
        .select({ n: count() })
        .from(t2)
        .where(and(eq(t2.import_id, importId), eq(t2.match_attempted, true))),
    ),
  );
  return row?.n ?? 0;
}

/** The audit actions recorded about the drafts of an import, counted per draft id. */
export async function matchedAuditsPerDraft(t: TestApp, orgId: string, importId: string) {
  const rows = await (await orgDb(t, orgId)).read((d) =>
    all<{ resource_id: string; n: number }>(
      d
        .select({ resource_id: auditEntries.resource_id, n: count() })
        .from(auditEntries)
        .where(
          and(
            eq(auditEntries.action, "insurance_draft.matched"),
            sql`${auditEntries.resource_id} IN (SELECT id FROM insurance_drafts WHERE import_id = ${importId})`,
          ),
        )
        .groupBy(auditEntries.resource_id),
    ),
  );
  return new Map(rows.map((r) => [r.resource_id, r.n]));
}

/** A realistic eligibility row (9 keys), the i-th of a generated import. */
export function generatedRow(i: number, subscriber: { first: string; last: string; dob: string }, carrierName = "Delta Dental of California") {
  return {
    carrier_name: carrierName,
    payer_id: "94276",
    group_number: i % 3 === 0 ? "G-100" : i % 3 === 1 ? "G-200" : "G-999",
    group_name: "Acme Corp",
    subscriber_first_name: subscriber.first,
    subscriber_last_name: subscriber.last,
    subscriber_date_of_birth: subscriber.dob,
    member_id: `W${String(100000000 + i)}`,
    relationship: "self",
  };
}
