import { expect } from "bun:test";
import { busDrained, createMember, type TestApp } from "@tests/helpers";
import type { EventEnvelope } from "@/platform/events/envelope";

// Helpers shared by the tests of the patient record's sub-resources (tags,
// custom fields, ledger, duplicates).

/** Two orgs (A is the one under test, B the foreign one) and the admin's token. */
export async function twoOrgs(t: TestApp) {
  const token = await t.adminToken();
  const a = (await t.createOrg()).id;
  const b = (await t.createOrg()).id;
  return { token, a, b, A: `/api/v1/${a}`, B: `/api/v1/${b}` };
}

export async function newPatient(t: TestApp, orgId: string, body: Record<string, unknown> = {}) {
  const r = await t.request("POST", `/api/v1/${orgId}/patients`, { token: await t.adminToken(), body: { first_name: "Pat", last_name: "Ient", ...body } });
  if (r.status !== 201) throw new Error(`create patient failed: ${r.status} ${r.text}`);
  return r.body as { id: string; version: number } & Record<string, any>;
}

/** Events of the org, as the stream would deliver them (after the bus fence, every event of each finished write is in). */
export function captureEvents(t: TestApp, orgId: string) {
  const events: EventEnvelope[] = [];
  t.rt.events.subscribe(orgId, (e) => events.push(e));
  return async (type?: string) => {
    await busDrained(t.rt.bus);
    return type ? events.filter((e) => e.type === type) : events;
  };
}

/**
 * The guard's answers for one route: 401 without a token, 403 for a member
 * holding every key but `key`, 404 for a member of another org holding `key`.
 */
export async function expectGuarded(t: TestApp, orgId: string, otherOrgId: string, method: string, path: string, key: string, body?: unknown) {
  const others = ["patients.read", "patients.write", "patients.settings.write", "billing.ledger.read", "billing.ledger.write"].filter((k) => k !== key);
  const anon = await t.request(method, path, { body });
  expect(anon.status).toBe(401);
  expect(anon.headers.get("www-authenticate")).toBe("Bearer");
  const lacking = await createMember(t, orgId, others);
  const forbidden = await t.request(method, path, { token: lacking.token, body });
  expect(forbidden.status).toBe(403);
  expect(forbidden.body.code).toBe("forbidden");
  const outsider = await createMember(t, otherOrgId, [key]);
  expect((await t.request(method, path, { token: outsider.token, body })).status).toBe(404);
  const holder = await createMember(t, orgId, [key]);
  return holder.token;
}

export const MALFORMED = { rawBody: '{"name": ', headers: { "content-type": "application/json" } };
