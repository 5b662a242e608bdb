import { busDrained, type TestApp } from "@tests/helpers";
import type { EventEnvelope } from "@/platform/events/envelope";

// Helpers shared by the tests of the patient record's sub-resources (tags,
// custom fields, ledger, duplicates).

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

export const MALFORMED = { rawBody: '{"name": ', headers: { "content-type": "application/json" } };
