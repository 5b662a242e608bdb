import { createMember, startTestApp, unique, type TestApp } from "@tests/helpers";
import type { EventEnvelope } from "@/platform/events/envelope";

export const MISSING = "01970000-0000-7000-8000-000000000000";

/** An app with two orgs (A, B: their {P}/odontogram/auto-codes paths) and members holding partial keys. */
export async function autoCodeApp() {
  const t = await startTestApp();
  const admin = await t.adminToken();
  const orgA = (await t.createOrg()).id;
  const orgB = (await t.createOrg()).id;
  const events: EventEnvelope[] = [];
  t.rt.events.subscribe(orgA, (e) => events.push(e));
  const [reader, outsider, memberOfB] = (
    await Promise.all([
      createMember(t, orgA, ["odontogram.read"]),
      createMember(t, orgA, ["definitions.read", "definitions.write"]),
      createMember(t, orgB, ["odontogram.read", "odontogram.write"]),
    ])
  ).map((m) => m.token);
  const A = `/api/v1/${orgA}/odontogram/auto-codes`;
  const B = `/api/v1/${orgB}/odontogram/auto-codes`;
  return { t, admin, orgA, orgB, A, B, events, reader: reader!, outsider: outsider!, memberOfB: memberOfB! };
}

export type Env = Awaited<ReturnType<typeof autoCodeApp>>;

/** Create a family (201 or throw); family_name is unique per call unless given. */
export async function family(env: Pick<Env, "t" | "admin">, P: string, body: Record<string, unknown> = {}) {
  const r = await env.t.request("POST", `${P}/auto-code-families`, {
    token: env.admin,
    body: { family_name: unique("fam"), display_name: "Family", selection_type: "surface_count", ...body },
  });
  if (r.status !== 201) throw new Error(`create family failed: ${r.status} ${r.text}`);
  return r.body;
}

/** Create a rule in a family (201 or throw). */
export async function rule(env: Pick<Env, "t" | "admin">, P: string, familyId: string, body: Record<string, unknown>) {
  const r = await env.t.request("POST", `${P}/auto-code-families/${familyId}/rules`, { token: env.admin, body });
  if (r.status !== 201) throw new Error(`create rule failed: ${r.status} ${r.text}`);
  return r.body;
}

export type { TestApp };
