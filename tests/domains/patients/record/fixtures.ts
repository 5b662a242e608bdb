import { patients, patientTags, tagDefinitions } from "@db/tenant/patients";
import { providers } from "@db/tenant/practice";
import { run } from "@/platform/db/work";
import type { TestApp } from "@tests/helpers";

// Data the patients tests need from domains that have no routes of their own
// yet (providers, tags), written straight to the org's database.

export async function orgDb(t: TestApp, orgId: string) {
  const org = (await t.rt.access.org(orgId))!;
  return t.rt.orgDbs.get(org.id, org.shard);
}

const stamp = () => new Date().toISOString();

export async function insertProvider(t: TestApp, orgId: string, fields: { first_name: string; last_name: string; deleted?: boolean }) {
  const db = await orgDb(t, orgId);
  const id = Bun.randomUUIDv7();
  const now = stamp();
  await db.write((tx) =>
    run(
      tx.insert(providers).values({
        id,
        abbreviation: fields.last_name.slice(0, 4).toUpperCase(),
        first_name: fields.first_name,
        last_name: fields.last_name,
        created_at: now,
        updated_at: now,
        version: 1,
        deleted_at: fields.deleted ? now : null,
      }),
    ),
  );
  return id;
}

export async function insertTag(t: TestApp, orgId: string, name: string) {
  const db = await orgDb(t, orgId);
  const id = Bun.randomUUIDv7();
  const now = stamp();
  await db.write((tx) => run(tx.insert(tagDefinitions).values({ id, name, created_at: now, updated_at: now, version: 1 })));
  return id;
}

export async function tagPatient(t: TestApp, orgId: string, patientId: string, tagId: string) {
  const db = await orgDb(t, orgId);
  await db.write((tx) => run(tx.insert(patientTags).values({ patient_id: patientId, tag_definition_id: tagId, created_at: stamp() })));
}

/** Set the read-only balance columns (billing maintains them; no route writes them). */
export async function setBalances(
  t: TestApp,
  orgId: string,
  patientId: string,
  cents: Partial<
    Record<
      | "balance_0_30_cents"
      | "balance_31_60_cents"
      | "balance_61_90_cents"
      | "balance_over_90_cents"
      | "estimated_balance_cents"
      | "insurance_estimate_cents"
      | "payment_plan_due_cents",
      number
    >
  >,
) {
  const db = await orgDb(t, orgId);
  const { eq } = await import("drizzle-orm");
  await db.write((tx) => run(tx.update(patients).set(cents).where(eq(patients.id, patientId))));
}
