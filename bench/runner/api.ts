// The runner's calls to the API it measures: fixtures are built through it.

import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { ADMIN } from "./settings";

/** One JSON call; throws on anything but 2xx. */
export async function api(base: string, method: string, path: string, body?: unknown, token?: string, extra: Record<string, string> = {}): Promise<any> {
  const headers: Record<string, string> = { ...extra };
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const r = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  if (!r.ok) throw new Error(`${method} ${path} -> ${r.status}: ${text}`);
  return text ? JSON.parse(text) : null;
}

/** The bootstrap administrator's access token. */
export async function loginAdmin(base: string): Promise<string> {
  return (await api(base, "POST", "/api/v1/auth/login", ADMIN)).access_token as string;
}

export async function createOrg(base: string, token: string, label: string): Promise<string> {
  const slug = `bench-${label}-${Date.now().toString(36)}`;
  const org = await api(base, "POST", "/api/v1/admin/orgs", { name: `Bench ${label}`, slug, max_locations: 10_000 }, token);
  return org.id as string;
}

/** The org's SQLite file on the local shard (the runner sets DEFAULT_SHARD_DSN to <dataDir>/shards/local). */
export function orgDbFile(dataDir: string, orgId: string): string {
  const expected = join(dataDir, "shards", "local", `${orgId}.db`);
  if (existsSync(expected)) return expected;
  const found = (readdirSync(dataDir, { recursive: true }) as string[]).find((f) => f.endsWith(`${orgId}.db`));
  if (!found) throw new Error(`the database of org ${orgId} is not under ${dataDir}`);
  return join(dataDir, found);
}
