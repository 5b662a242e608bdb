import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { medicalApp } from "./fixtures";

let m: Awaited<ReturnType<typeof medicalApp>>;
beforeAll(async () => {
  m = await medicalApp();
});
afterAll(() => m.t.close());

const list = async (patientId: string, query = "") => {
  const r = await m.t.request("GET", `${m.path(patientId, "alerts")}${query}`, { token: m.token });
  if (r.status !== 200) throw new Error(`list failed: ${r.status} ${r.text}`);
  return r.body;
};
const titles = async (patientId: string, query = "") => (await list(patientId, query)).items.map((a: { title: string }) => a.title);

describe("alerts", () => {
  test("create with every field; defaults when only the title is sent", async () => {
    const p = await m.createPatient({ first_name: "Al", last_name: "Ert" });
    const full = await m.t.request("POST", m.path(p.id, "alerts"), {
      token: m.token,
      body: {
        title: "  Needs premedication ",
        description: "Amoxicillin 2 g one hour before",
        category: "medical",
        severity: "high",
        scope: "family",
        status: "disabled",
      },
    });
    expect(full.status).toBe(201);
    expect(full.body).toMatchObject({
      title: "Needs premedication",
      description: "Amoxicillin 2 g one hour before",
      category: "medical",
      severity: "high",
      scope: "family",
      status: "disabled",
      patient: { uuid: p.id, name: "Al Ert" },
      version: 1,
      deleted_at: null,
    });
    const min = await m.createRecord(p.id, "alerts", { title: "Anxious" });
    expect(min).toMatchObject({ title: "Anxious", description: null, category: "medical", severity: "medium", scope: "patient", status: "active" });
  });

  test.each([
    ["missing title", {}, ["body", "title"], "missing"],
    ["blank title", { title: "   " }, ["body", "title"], "out_of_range"],
    ["title too long", { title: "x".repeat(201) }, ["body", "title"], "out_of_range"],
    ["title not a string", { title: 7 }, ["body", "title"], "type_error"],
    ["description too long", { title: "A", description: "x".repeat(2001) }, ["body", "description"], "out_of_range"],
    ["unknown severity", { title: "A", severity: "urgent" }, ["body", "severity"], "enum"],
    ["unknown category", { title: "A", category: "gossip" }, ["body", "category"], "enum"],
    ["unknown scope", { title: "A", scope: "clinic" }, ["body", "scope"], "enum"],
    ["status archived (use archive)", { title: "A", status: "archived" }, ["body", "status"], "enum"],
    ["null severity", { title: "A", severity: null }, ["body", "severity"], "enum"],
  ])("422 on create: %s; nothing written", async (_name, body, loc, type) => {
    const p = await m.createPatient();
    const r = await m.t.request("POST", m.path(p.id, "alerts"), { token: m.token, body });
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ loc, type });
    expect((await list(p.id)).total).toBe(0);
  });

  test("PATCH changes the given fields only; 422 for bad values and status archived; nothing changes", async () => {
    const p = await m.createPatient();
    const a = await m.createRecord(p.id, "alerts", { title: "Old", description: "keep" });
    const r = await m.t.request("PATCH", m.path(p.id, "alerts", a.id), {
      token: m.token,
      body: { base_version: 1, title: "New", status: "disabled", description: null },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ title: "New", status: "disabled", description: null, severity: "medium", version: 2 });
    for (const body of [{ status: "archived" }, { title: "" }, { scope: "everyone" }, { title: null }]) {
      const bad = await m.t.request("PATCH", m.path(p.id, "alerts", a.id), { token: m.token, body: { base_version: 2, ...body } });
      expect([body, bad.status]).toEqual([body, 422]);
    }
    expect(await m.rowOf("alerts", a.id)).toMatchObject({ title: "New", status: "disabled", version: 2 });
  });

  test("status filter: without it active and disabled; archived only with status=archived, and still readable by id", async () => {
    const p = await m.createPatient();
    await m.createRecord(p.id, "alerts", { title: "Active" });
    await m.createRecord(p.id, "alerts", { title: "Disabled", status: "disabled" });
    const gone = await m.createRecord(p.id, "alerts", { title: "Gone" });
    const r = await m.t.request("POST", `${m.path(p.id, "alerts", gone.id)}/archive`, { token: m.token });
    expect(r.body).toMatchObject({ status: "archived", version: 2 });
    expect(await titles(p.id)).toEqual(["Active", "Disabled"]);
    expect(await titles(p.id, "?status=active")).toEqual(["Active"]);
    expect(await titles(p.id, "?status=disabled")).toEqual(["Disabled"]);
    expect(await titles(p.id, "?status=archived")).toEqual(["Gone"]);
    const got = await m.t.request("GET", m.path(p.id, "alerts", gone.id), { token: m.token });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ status: "archived", version: 2 });
    expect(got.body.deleted_at).toMatch(/Z$/);
    const bad = await m.t.request("GET", `${m.path(p.id, "alerts")}?status=deleted`, { token: m.token });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ["query", "status"], type: "enum" });
  });

  test("archived alerts are read-only (422 alert_archived) and cannot be archived again (422 invalid_transition)", async () => {
    const p = await m.createPatient();
    const a = await m.createRecord(p.id, "alerts", { title: "Once" });
    await m.t.request("POST", `${m.path(p.id, "alerts", a.id)}/archive`, { token: m.token });
    const patch = await m.t.request("PATCH", m.path(p.id, "alerts", a.id), { token: m.token, body: { base_version: 2, title: "Twice" } });
    expect(patch.status).toBe(422);
    expect(patch.body).toMatchObject({ code: "alert_archived", detail: [{ loc: ["path", "alert_uuid"], type: "alert_archived" }] });
    const again = await m.t.request("POST", `${m.path(p.id, "alerts", a.id)}/archive`, { token: m.token });
    expect(again.status).toBe(422);
    expect(again.body.code).toBe("invalid_transition");
    expect(await m.rowOf("alerts", a.id)).toMatchObject({ title: "Once", status: "archived", version: 2 });
  });

  test("paging: page and page_size, ordered by creation", async () => {
    const p = await m.createPatient();
    for (const title of ["A1", "A2", "A3"]) await m.createRecord(p.id, "alerts", { title });
    const page2 = await list(p.id, "?page=2&page_size=2");
    expect(page2).toMatchObject({ page: 2, page_size: 2, total: 3 });
    expect(page2.items.map((a: { title: string }) => a.title)).toEqual(["A3"]);
  });
});

describe("include_family", () => {
  // guarantor G; G's dependants D1 and D2; an unrelated patient U; an archived dependant X
  let g: { id: string }, d1: { id: string }, d2: { id: string }, u: { id: string }, x: { id: string };
  beforeAll(async () => {
    g = await m.createPatient({ first_name: "Gina", last_name: "Guarantor" });
    d1 = await m.createPatient({ first_name: "Dan", last_name: "Guarantor", responsible_party_uuid: g.id });
    d2 = await m.createPatient({ first_name: "Dora", last_name: "Guarantor", responsible_party_uuid: g.id });
    u = await m.createPatient({ first_name: "Uma", last_name: "Else" });
    x = await m.createPatient({ first_name: "Xav", last_name: "Guarantor", responsible_party_uuid: g.id });
    await m.createRecord(g.id, "alerts", { title: "G family", scope: "family" });
    await m.createRecord(g.id, "alerts", { title: "G own" });
    await m.createRecord(d1.id, "alerts", { title: "D1 family", scope: "family" });
    await m.createRecord(d1.id, "alerts", { title: "D1 own" });
    await m.createRecord(d2.id, "alerts", { title: "D2 family disabled", scope: "family", status: "disabled" });
    await m.createRecord(u.id, "alerts", { title: "U family", scope: "family" });
    await m.createRecord(x.id, "alerts", { title: "X family", scope: "family" });
    await m.t.request("POST", `${m.base()}/${x.id}/archive`, { token: m.token });
  });

  test("default false: only the patient's own alerts", async () => {
    expect(await titles(d1.id)).toEqual(["D1 family", "D1 own"]);
    expect(await titles(d1.id, "?include_family=false")).toEqual(["D1 family", "D1 own"]);
    expect(await titles(d1.id, "?include_family=0")).toEqual(["D1 family", "D1 own"]);
  });

  test("a dependant sees the guarantor's and the other dependants' family-scoped alerts, with their owner", async () => {
    const r = await list(d1.id, "?include_family=true");
    expect(r.items.map((a: { title: string; patient: { name: string } }) => [a.title, a.patient.name])).toEqual([
      ["G family", "Gina Guarantor"],
      ["D1 family", "Dan Guarantor"],
      ["D1 own", "Dan Guarantor"],
      ["D2 family disabled", "Dora Guarantor"],
    ]);
    expect(r.total).toBe(4);
    expect(await titles(d1.id, "?include_family=1&status=active")).toEqual(["G family", "D1 family", "D1 own"]);
  });

  test("the guarantor sees the dependants' family-scoped alerts", async () => {
    expect(await titles(g.id, "?include_family=true")).toEqual(["G family", "G own", "D1 family", "D2 family disabled"]);
  });

  test("a patient without a family gets only its own alerts; bad include_family is 422", async () => {
    expect(await titles(u.id, "?include_family=true")).toEqual(["U family"]);
    const bad = await m.t.request("GET", `${m.path(u.id, "alerts")}?include_family=yes`, { token: m.token });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(["query", "include_family"]);
  });

  test("family alerts are listed only: through a member's path they are 404", async () => {
    const gFamily = (await list(g.id)).items[0];
    expect(gFamily.title).toBe("G family");
    expect((await m.t.request("GET", m.path(d1.id, "alerts", gFamily.id), { token: m.token })).status).toBe(404);
    expect((await m.t.request("PATCH", m.path(d1.id, "alerts", gFamily.id), { token: m.token, body: { base_version: 1, title: "Hijack" } })).status).toBe(404);
  });
});
