import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { startTestApp, type TestApp } from "@tests/helpers";
import { OrgDatabases } from "@/platform/db/org-databases";
import { definitions } from "@db/tenant/definitions";
import { appliedSeeds } from "@db/tenant/seeds";
import { all, run } from "@/platform/db/work";
import type { OrgSeed } from "@db/seeds/seed";
import { AUTO_CODE_FAMILIES } from "@db/seeds/auto-codes";
import { parseConditions } from "@/domains/odontogram/auto-codes/conditions";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const holiday = (name: string, date: string): OrgSeed => ({
  name: `test-holiday-${date}`,
  *run(tx, now) {
    yield* run(
      tx
        .insert(definitions)
        .values({ id: Bun.randomUUIDv7(), category: "holidays", item_name: name, item_value: date, created_at: now, updated_at: now, version: 1 }),
    );
  },
});

const holidaysIn = async (dbs: OrgDatabases, orgId: string, shard: { id: string; dsn: string; auth_token: null }) => {
  const db = await dbs.get(orgId, shard);
  return (
    await db.read((d) =>
      all<{ item_name: string }>(
        d.select({ item_name: definitions.item_name }).from(definitions).where(eq(definitions.category, "holidays")).orderBy(definitions.item_value),
      ),
    )
  ).map((r) => r.item_name);
};

describe("org seeds (starter data)", () => {
  test("run once at provisioning, never again on reopen, and a seed added later reaches existing orgs on open", async () => {
    const shard = { id: "s", dsn: `file:${join(t.dir, "seed-shard")}`, auth_token: null };
    const orgId = Bun.randomUUIDv7();
    const first = new OrgDatabases(4, [holiday("New Year", "2027-01-01")]);
    await first.provision(orgId, shard);
    expect(await holidaysIn(first, orgId, shard)).toEqual(["New Year"]);
    first.closeAll();

    // same seeds again (a restart): nothing is inserted twice
    const again = new OrgDatabases(4, [holiday("New Year", "2027-01-01")]);
    expect(await holidaysIn(again, orgId, shard)).toEqual(["New Year"]);
    again.closeAll();

    // a release adds a seed: the existing org receives it when its database is opened
    const later = new OrgDatabases(4, [holiday("New Year", "2027-01-01"), holiday("Independence Day", "2027-07-04")]);
    expect(await holidaysIn(later, orgId, shard)).toEqual(["New Year", "Independence Day"]);
    const db = await later.get(orgId, shard);
    expect(
      (await db.read((d) => all<{ name: string }>(d.select({ name: appliedSeeds.name }).from(appliedSeeds).orderBy(appliedSeeds.name)))).map((r) => r.name),
    ).toEqual(["test-holiday-2027-01-01", "test-holiday-2027-07-04"]);
    later.closeAll();
  });

  test("a process checks an org's database once: a handle reopened after the bound closed it skips the checks; evict() makes the next open check again", async () => {
    const shard = { id: "s", dsn: `file:${join(t.dir, "seed-shard-memo")}`, auth_token: null };
    const [a, b] = [Bun.randomUUIDv7(), Bun.randomUUIDv7()];
    const dbs = new OrgDatabases(1, [holiday("New Year", "2027-01-01")]);
    await dbs.provision(a, shard);
    // forget the seed behind the process's back: only a check would run it again
    const forget = async () => (await dbs.get(a, shard)).write((tx) => run(tx.delete(appliedSeeds)));
    await forget();
    await dbs.provision(b, shard); // the bound of one closes a's handle
    expect(dbs.size).toBe(1);
    expect(await holidaysIn(dbs, a, shard)).toEqual(["New Year"]); // reopened, not checked again
    dbs.evict(a);
    expect(await holidaysIn(dbs, a, shard)).toEqual(["New Year", "New Year"]); // checked again: the forgotten seed ran
    dbs.closeAll();
  });

  test("a failing seed rolls back with the others due and is retried on the next open", async () => {
    const shard = { id: "s", dsn: `file:${join(t.dir, "seed-shard-2")}`, auth_token: null };
    const orgId = Bun.randomUUIDv7();
    const broken: OrgSeed = {
      name: "broken",
      *run() {
        throw new Error("bad seed");
      },
    };
    await expect(new OrgDatabases(4, [holiday("New Year", "2027-01-01"), broken]).provision(orgId, shard)).rejects.toThrow("bad seed");
    const fixed = new OrgDatabases(4, [holiday("New Year", "2027-01-01")]);
    expect(await holidaysIn(fixed, orgId, shard)).toEqual(["New Year"]);
    fixed.closeAll();
  });
});

describe("starter data is what the domains would make of it", () => {
  test("every seeded auto-code rule's conditions are already in the form the auto-codes parser gives (the seed stores them as written)", () => {
    const rules = AUTO_CODE_FAMILIES.flatMap((f) => f.rules.map(([conditions]) => ({ type: f.selection_type, conditions })));
    expect(rules.length).toBe(29);
    for (const r of rules) expect(parseConditions(r.type, r.conditions)).toEqual(r.conditions);
  });
});
