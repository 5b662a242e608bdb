import type { TestApp } from "@tests/helpers";
import { unique } from "@tests/helpers";

// Providers and locations go through their own APIs (both exist).

export const NPI = "1234567893";
export const NPI2 = "9876543213";
export const DEA = "AB1234563"; // (1+3+5) + 2×(2+4+6) = 33 → check digit 3
export const DEA2 = "FM7654329"; // (7+5+3) + 2×(6+4+2) = 39 → check digit 9
export const MISSING = "01970000-0000-7000-8000-000000000000";

export async function createProvider(t: TestApp, orgId: string, body: Record<string, unknown> = {}) {
  const r = await t.request("POST", `/api/v1/${orgId}/providers`, {
    token: await t.adminToken(),
    body: { abbreviation: unique("P").slice(-12), first_name: "Ada", last_name: "Molar", ...body },
  });
  if (r.status !== 201) throw new Error(`provider: ${r.status} ${r.text}`);
  return r.body as { id: string; version: number };
}

export async function archiveProvider(t: TestApp, orgId: string, id: string) {
  const r = await t.request("POST", `/api/v1/${orgId}/providers/${id}/archive`, { token: await t.adminToken() });
  if (r.status !== 200) throw new Error(`archive provider: ${r.status} ${r.text}`);
}

export async function createLocation(t: TestApp, orgId: string, name = unique("Clinic")) {
  const r = await t.request("POST", `/api/v1/${orgId}/locations`, { token: await t.adminToken(), body: { name, timezone: "America/New_York" } });
  if (r.status !== 201) throw new Error(`location: ${r.status} ${r.text}`);
  return r.body as { id: string; name: string; version: number };
}

export async function archiveLocation(t: TestApp, orgId: string, id: string) {
  const r = await t.request("POST", `/api/v1/${orgId}/locations/${id}/archive`, { token: await t.adminToken() });
  if (r.status !== 200) throw new Error(`archive location: ${r.status} ${r.text}`);
}
