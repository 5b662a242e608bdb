import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { count } from "drizzle-orm";
import { estimateBooks, insurancePlans } from "@db/tenant/insurance";
import { auditEntries } from "@db/tenant/audit";
import { patients } from "@db/tenant/patients";
import { locations, providers } from "@db/tenant/practice";
import { all, get } from "@/platform/db/work";
import { unique } from "@tests/helpers";
import { feeWorld, MISSING, orgDb, type FeeWorld } from "./fixtures";

// The fee_schedule_uuid that patients, providers, locations and insurance plans
// carry, and an estimate book's allowed_fee_schedule_uuid: a live schedule of
// this org, else 404 "Fee schedule" with nothing stored; answered as a
// reference with the schedule's name.

let w: FeeWorld;
let live: { id: string; name: string };
let archived: string;
let theirs: string;
let carrier: string;

beforeAll(async () => {
  w = await feeWorld();
  live = await w.createSchedule({ name: "Referenced fees", schedule_type: "ppo" });
  archived = (await w.createSchedule()).id;
  await w.call("POST", `${w.S()}/${archived}/archive`, undefined, 200);
  theirs = (await w.createSchedule({}, w.orgB)).id;
  carrier = (await w.call("POST", `${w.P()}/insurance/carriers`, { carrier_name: "Delta Dental" }, 201)).body.id;
});
afterAll(() => w.t.close());

type Kind = {
  what: string;
  path: () => string;
  field: string;
  ref: string;
  table: any;
  create: (extra: Record<string, unknown>) => Record<string, unknown>;
};
const KINDS: Kind[] = [
  {
    what: "patient",
    path: () => `${w.P()}/patients`,
    field: "fee_schedule_uuid",
    ref: "fee_schedule",
    table: patients,
    create: (x) => ({ first_name: "Ref", last_name: "Erence", ...x }),
  },
  {
    what: "provider",
    path: () => `${w.P()}/providers`,
    field: "fee_schedule_uuid",
    ref: "fee_schedule",
    table: providers,
    create: (x) => ({ abbreviation: unique("R").slice(-12), first_name: "Pro", last_name: "Vider", ...x }),
  },
  {
    what: "location",
    path: () => `${w.P()}/locations`,
    field: "fee_schedule_uuid",
    ref: "fee_schedule",
    table: locations,
    create: (x) => ({ name: unique("Loc"), timezone: "UTC", ...x }),
  },
  {
    what: "insurance plan",
    path: () => `${w.P()}/insurance/plans`,
    field: "fee_schedule_uuid",
    ref: "fee_schedule",
    table: insurancePlans,
    create: (x) => ({ carrier_uuid: carrier, ...x }),
  },
  {
    what: "estimate book",
    path: () => `${w.P()}/insurance/estimate-books`,
    field: "allowed_fee_schedule_uuid",
    ref: "allowed_fee_schedule",
    table: estimateBooks,
    create: (x) => ({ name: unique("Book"), rule_type: "manual_fee_schedule", ...x }),
  },
];

/** The kind's rows and the org's audit entries: what a refusal must leave as they were. */
const stored = async (k: Kind) =>
  (await orgDb(w.t, w.orgA)).read(function* (d) {
    return { rows: yield* all(d.select().from(k.table)), audit: (yield* get<{ n: number }>(d.select({ n: count() }).from(auditEntries)))!.n };
  });

describe.each(KINDS.map((k) => [k.what, k] as const))("%s", (_what, k) => {
  test(`create and PATCH: ${k.field} names a live schedule, answered as ${k.ref} {uuid, name}; null clears it`, async () => {
    const r = await w.call("POST", k.path(), k.create({ [k.field]: live.id.toUpperCase() }), 201);
    expect(r.body[k.ref]).toEqual({ uuid: live.id, name: "Referenced fees" });
    expect((await w.call("GET", `${k.path()}/${r.body.id}`, undefined, 200)).body[k.ref]).toEqual({ uuid: live.id, name: "Referenced fees" });
    const cleared = await w.call("PATCH", `${k.path()}/${r.body.id}`, { base_version: r.body.version, [k.field]: null }, 200);
    expect(cleared.body[k.ref]).toBeNull();
    const set = await w.call("PATCH", `${k.path()}/${r.body.id}`, { base_version: cleared.body.version, [k.field]: live.id }, 200);
    expect(set.body[k.ref]).toEqual({ uuid: live.id, name: "Referenced fees" });
    // a reference keeps the name after the schedule is renamed (the name is read, not copied)
    const renamed = await w.createSchedule({ name: "Before rename" });
    const again = await w.call("PATCH", `${k.path()}/${r.body.id}`, { base_version: set.body.version, [k.field]: renamed.id }, 200);
    await w.call("PATCH", `${w.S()}/${renamed.id}`, { base_version: 1, name: unique("After rename") }, 200);
    const read = (await w.call("GET", `${k.path()}/${r.body.id}`, undefined, 200)).body;
    expect(read[k.ref].name).toMatch(/^After rename/);
    expect(read.version).toBe(again.body.version);
    // the read-only reference itself cannot be written
    const ro = await w.call("PATCH", `${k.path()}/${r.body.id}`, { base_version: read.version, [k.ref]: { uuid: live.id } });
    expect({ status: ro.status, first: ro.body.detail?.[0] }).toEqual({
      status: 422,
      first: { loc: ["body", k.ref], msg: expect.any(String), type: "read_only" },
    });
  });

  test(`404 "Fee schedule" when ${k.field} names one missing, archived or another org's; nothing is stored`, async () => {
    const existing = await w.call("POST", k.path(), k.create({}), 201);
    const before = await stored(k);
    for (const id of [MISSING, archived, theirs]) {
      const created = await w.call("POST", k.path(), k.create({ [k.field]: id }));
      expect({ id, status: created.status, body: created.body }).toEqual({ id, status: 404, body: { detail: "Fee schedule not found", code: "not_found" } });
      const patched = await w.call("PATCH", `${k.path()}/${existing.body.id}`, { base_version: existing.body.version, [k.field]: id });
      expect({ id, status: patched.status, body: patched.body }).toEqual({ id, status: 404, body: { detail: "Fee schedule not found", code: "not_found" } });
    }
    expect(await stored(k)).toEqual(before);
  });
});
