// The world the fuzzer runs against: a fresh app, its OpenAPI document, two
// orgs (the first one the fuzz mostly acts in, the second one whose ids must
// never be reachable from the first), a spare org for platform writes, the
// callers, and records created through the API from the document alone.
import { join } from "node:path";
import { buildApp } from "@/app";
import { ORG_PERMISSION_KEYS } from "@/platform/permissions/registry";
import { twoOrgApp, type TestApp } from "@tests/helpers";
import { badCredentials } from "./credentials";
import { Pools } from "./pools";
import type { Limits, World } from "./request";
import { Spec } from "./spec";
import { StoreWatch, orgDatabaseDirs } from "./watch";

export type Fixture = {
  t: TestApp;
  app: { handle(r: Request): Promise<Response> };
  world: World;
  watch: StoreWatch;
  /** Logs a principal in again (its session may have been ended by a fuzzed logout or refresh reuse); false when it cannot. */
  relogin(who: string): Promise<boolean>;
  close(): Promise<void>;
};

const subOf = (token: string) => JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8")).sub as string;

export async function startFixture(): Promise<Fixture> {
  const {
    t,
    admin: adminToken,
    orgA,
    orgB,
    members: { member, reader },
  } = await twoOrgApp(
    {
      member: { keys: ORG_PERMISSION_KEYS, displayName: "Fuzz member" },
      reader: { keys: ORG_PERMISSION_KEYS.filter((k) => k.endsWith(".read")), displayName: "Fuzz reader" },
    },
    {
      env: {
        RATE_LIMITS: "off",
        // the login throttle keys on the account and the address: the fuzz's failed logins would lock the fixture's own re-logins out
        LOGIN_MAX_FAILURES: "1000000",
        LOGIN_MAX_FAILURES_PER_ADDRESS: "1000000",
      },
    },
  );
  const app = buildApp(t.rt);
  const doc = (await t.request("GET", "/openapi.json")).body;
  const spec = new Spec(doc);
  const spare = await t.createOrg();
  const logins: Record<string, { email: string; password: string }> = {
    admin: { email: "admin@example.com", password: "admin-password" },
    member: { email: member.email, password: member.password },
    reader: { email: reader.email, password: reader.password },
  };
  const principals: World["principals"] = {
    admin: { userId: subOf(adminToken), token: adminToken },
    member: { userId: member.userId, token: member.token },
    reader: { userId: reader.userId, token: reader.token },
  };
  const pools = new Pools();
  // the fixture's own refresh tokens: a fuzzed refresh rotates them, a replay revokes the family (the re-login then recovers)
  pools.remember("refresh_token", member.refresh);
  pools.remember("refresh_token", reader.refresh);
  for (const id of [orgA, orgB, principals.admin!.userId, member.userId, reader.userId]) pools.protectedIds.add(id);
  pools.add("platform", "orgs", spare.id);
  const limits: Limits = {
    bodyBytes: t.config.jsonBodyLimit,
    maxDepth: t.config.inputLimits.jsonMaxDepth,
    maxValues: t.config.inputLimits.jsonMaxValues,
    maxObjectKeys: (t.config.inputLimits as { jsonMaxObjectKeys?: number } | undefined)?.jsonMaxObjectKeys ?? 1_000,
    queryMaxParams: t.config.inputLimits.queryMaxParams,
    queryMaxBytes: t.config.inputLimits.queryMaxBytes,
  };
  const world: World = {
    spec,
    pools,
    orgs: [
      { key: "A", id: orgA },
      { key: "B", id: orgB },
    ],
    principals,
    bad: await badCredentials(principals.admin!, principals.member!, t.config.jwtSecret),
    limits,
    idempotent: new Map(),
  };
  const watch = new StoreWatch(join(t.dir, "control.db"), orgDatabaseDirs(t.dir));
  pools.owned = (scope, id) => {
    const org = world.orgs.find((o) => o.key === scope);
    return !!org && watch.ownedBy(org.id, id);
  };
  return {
    t,
    app,
    world,
    watch,
    async relogin(who) {
      const l = logins[who];
      if (!l) return false;
      const r = await t.request("POST", "/api/v1/auth/login", { body: l });
      if (r.status !== 200) return false;
      principals[who]!.token = r.body.access_token;
      pools.remember("refresh_token", r.body.refresh_token);
      return true;
    },
    async close() {
      watch.close();
      await t.close();
    },
  };
}
