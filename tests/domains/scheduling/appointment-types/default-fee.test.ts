import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, twoOrgApp, type TestApp } from "@tests/helpers";
import type { EventEnvelope } from "@/platform/events/envelope";

// default_fee: a number in requests, a two-decimal string (or null) in answers, cents in the database.
let t: TestApp;
let admin: string;
let orgA: string;
let orgB: string;
const P = (org = orgA) => `/api/v1/${org}/appointment-types`;

beforeAll(async () => {
  ({ t, admin, orgA, orgB } = await twoOrgApp());
});
afterAll(() => t.close());

let seq = 0;
const valid = (over: Record<string, unknown> = {}) => ({ code: `F${++seq}`, name: `Fee type ${seq}`, duration_minutes: 30, color: "#123456", ...over });
const post = (body: unknown, org = orgA) => t.request("POST", P(org), { token: admin, body });
const read = async (id: string, org = orgA) => (await t.request("GET", `${P(org)}/${id}`, { token: admin })).body;
const patch = (id: string, body: unknown, org = orgA) => t.request("PATCH", `${P(org)}/${id}`, { token: admin, body });

describe("default_fee on create and read", () => {
  test("a number becomes a two-decimal string; omitted or null is null; get and list agree; audited", async () => {
    const cases: [Record<string, unknown>, string | null][] = [
      [{ default_fee: 95 }, "95.00"],
      [{ default_fee: 95.5 }, "95.50"],
      [{ default_fee: 0 }, "0.00"],
      [{ default_fee: 0.07 }, "0.07"],
      [{ default_fee: 1_000_000 }, "1000000.00"],
      [{}, null],
      [{ default_fee: null }, null],
    ];
    for (const [over, shown] of cases) {
      const r = await post(valid(over));
      expect(r.status).toBe(201);
      expect(r.body.default_fee).toBe(shown);
      expect(await read(r.body.id)).toEqual(r.body);
    }
    const r = await post(valid({ default_fee: 125.4 }));
    const list = (await t.request("GET", P(), { token: admin })).body;
    expect(list.items.find((x: any) => x.id === r.body.id).default_fee).toBe("125.40");
    const audit = await auditOf(t, orgA, r.body.id);
    expect(audit[0].after.default_fee).toBe("125.40");
  });

  test("422 for negative, three-decimal, string, boolean and too large fees; nothing is created", async () => {
    const before = (await t.request("GET", P(), { token: admin })).body.total;
    const cases: [unknown, string][] = [
      [-1, "out_of_range"],
      [-0.5, "out_of_range"],
      [1.005, "value_error"],
      [95.123, "value_error"],
      ["95", "type_error"],
      ["95.00", "type_error"],
      [false, "type_error"],
      [1_000_000.01, "out_of_range"],
    ];
    for (const [fee, type] of cases) {
      const r = await post(valid({ default_fee: fee }));
      expect(r.status).toBe(422);
      expect(r.body.detail).toEqual([expect.objectContaining({ loc: ["body", "default_fee"], type })]);
    }
    expect((await t.request("GET", P(), { token: admin })).body.total).toBe(before);
  });
});

describe("default_fee on PATCH", () => {
  test("sets, changes and clears it; other fields leave it alone; event names default_fee; audit before/after", async () => {
    const created = (await post(valid())).body;
    const seen: EventEnvelope[] = [];
    const stop = t.rt.events.subscribe(orgA, (e) => seen.push(e));
    const r = await patch(created.id, { base_version: 1, default_fee: 210.75 });
    stop();
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ default_fee: "210.75", version: 2 });
    expect(await read(created.id)).toEqual(r.body);
    expect(seen.map((e) => [e.type, e.data])).toEqual([["appointment_type.updated", { id: created.id, changed_fields: ["default_fee"] }]]);
    const audit = await auditOf(t, orgA, created.id);
    expect([audit[1].before.default_fee, audit[1].after.default_fee]).toEqual([null, "210.75"]);
    const renamed = await patch(created.id, { base_version: 2, name: "Renamed" });
    expect(renamed.body).toMatchObject({ name: "Renamed", default_fee: "210.75", version: 3 });
    const cleared = await patch(created.id, { base_version: 3, default_fee: null });
    expect(cleared.body).toMatchObject({ default_fee: null, version: 4 });
  });

  test("422 for bad fees, 409 stale, 404 another org's type: nothing changes", async () => {
    const created = (await post(valid({ default_fee: 40 }))).body;
    for (const [fee, type] of [
      [-0.01, "out_of_range"],
      [40.001, "value_error"],
      ["40", "type_error"],
      [[40], "type_error"],
    ] as [unknown, string][]) {
      const r = await patch(created.id, { base_version: 1, default_fee: fee });
      expect(r.status).toBe(422);
      expect(r.body.detail).toEqual([expect.objectContaining({ loc: ["body", "default_fee"], type })]);
    }
    const stale = await patch(created.id, { base_version: 7, default_fee: 1 });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("version_conflict");
    const foreign = (await post(valid({ default_fee: 5 }), orgB)).body;
    expect((await patch(foreign.id, { base_version: 1, default_fee: 1 })).status).toBe(404);
    expect(await read(created.id)).toEqual(created);
    expect((await read(foreign.id, orgB)).default_fee).toBe("5.00");
  });
});
