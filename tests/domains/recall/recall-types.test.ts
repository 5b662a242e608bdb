import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, expectGuarded, expectValidationCases } from "@tests/helpers";
import { MISSING, recallWorld, SETUP_TIMEOUT_MS, type RecallWorld } from "./fixtures";

let w: RecallWorld;
let T: string; // {P}/recall-types of org A
beforeAll(async () => {
  w = await recallWorld();
  T = `${w.A}/recall-types`;
}, SETUP_TIMEOUT_MS);
afterAll(() => w.t.close());

const req = (method: string, path: string, body?: unknown) => w.t.request(method, path, { token: w.token, body });
let n = 0;
const create = async (body: Record<string, unknown> = {}) => {
  const r = await req("POST", T, { name: `Fluoride ${n++}`, interval: { months: 6 }, trigger_procedure_code_uuids: [await w.codeId("D1206")], ...body });
  if (r.status !== 201) throw new Error(`${r.status} ${r.text}`);
  return r.body;
};

describe("seeded recall types", () => {
  test("five kinds with their CDT triggers, listed by name", async () => {
    const r = await req("GET", T);
    expect(r.status).toBe(200);
    const seeded = r.body.items
      .filter((t: any) => t.seed_key)
      .map((t: any) => [t.seed_key, t.name, t.interval, t.trigger_procedure_codes.map((c: any) => c.code), t.is_perio, t.archived_at]);
    expect(seeded).toEqual([
      ["bitewings", "Bitewings", { months: 12, weeks: 0, days: 0 }, ["D0272", "D0274"], false, null],
      ["child_prophy", "Child prophy", { months: 6, weeks: 0, days: 0 }, ["D1120"], false, null],
      ["pano", "Panoramic X-ray", { months: 36, weeks: 0, days: 0 }, ["D0330"], false, null],
      ["perio", "Perio maintenance", { months: 3, weeks: 0, days: 0 }, ["D4910"], true, null],
      ["prophy", "Prophy", { months: 6, weeks: 0, days: 0 }, ["D0120", "D0150", "D1110"], false, null],
    ]);
    expect(r.body.items.find((t: any) => t.seed_key === "prophy").trigger_procedure_codes[2]).toEqual({
      uuid: await w.codeId("D1110"),
      code: "D1110",
      name: "Adult cleaning",
    });
  });
});

describe("POST /recall-types", () => {
  test("201: the type with its trigger codes as refs with the code, the default length from the pattern; audited", async () => {
    const apptType = await w.post("/appointment-types", { code: "FLU", name: "Fluoride", duration_minutes: 30, color: "#00AA00" });
    const body = {
      name: "  Fluoride varnish ",
      interval: { months: 6, weeks: 1 },
      trigger_procedure_code_uuids: [await w.codeId("D1206")],
      default_appointment_type_uuid: apptType.id,
      time_pattern: "/XX/",
      is_perio: false,
    };
    const r = await req("POST", T, body);
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.any(String),
      name: "Fluoride varnish",
      interval: { months: 6, weeks: 1, days: 0 },
      trigger_procedure_codes: [{ uuid: body.trigger_procedure_code_uuids[0], code: "D1206", name: expect.any(String) }],
      default_appointment_type: { uuid: apptType.id, name: "Fluoride" },
      time_pattern: "/XX/",
      default_length_minutes: 40,
      is_perio: false,
      seed_key: null,
      archived_at: null,
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    expect((await req("GET", `${T}/${r.body.id}`)).body).toEqual(r.body);
    expect((await auditOf(w.t, w.orgA, r.body.id)).map((a) => a.action)).toEqual(["recall_type.created"]);
    // without a pattern: the appointment type's duration
    expect((await create({ default_appointment_type_uuid: apptType.id })).default_length_minutes).toBe(30);
    expect((await create()).default_length_minutes).toBeNull();
  });

  test("bad input: 422 (zero interval, bad pattern, unknown fields, empty triggers), 404 (unknown trigger code, another org's code, unknown appointment type); nothing written", async () => {
    const before = (await req("GET", `${T}?include_archived=true`)).body.total;
    const code = await w.codeId("D1206");
    const zero = await req("POST", T, { name: "Zero", interval: { months: 0, weeks: 0, days: 0 }, trigger_procedure_code_uuids: [code] });
    expect([zero.status, zero.body.code, zero.body.detail[0].loc]).toEqual([422, "invalid_interval", ["body", "interval"]]);
    await expectValidationCases(w.t, "POST", T, w.token, [
      [{ interval: { months: 6 }, trigger_procedure_code_uuids: [code] }, ["body", "name"], "missing"],
      [{ name: "X", trigger_procedure_code_uuids: [code] }, ["body", "interval"], "missing"],
      [{ name: "X", interval: { months: -1 }, trigger_procedure_code_uuids: [code] }, ["body", "interval", "months"], "out_of_range"],
      [{ name: "X", interval: { months: 1.5 }, trigger_procedure_code_uuids: [code] }, ["body", "interval", "months"], "type_error"],
      [{ name: "X", interval: { years: 1 }, trigger_procedure_code_uuids: [code] }, ["body", "interval", "years"], "extra_forbidden"],
      [{ name: "X", interval: { months: 6 }, trigger_procedure_code_uuids: [] }, ["body", "trigger_procedure_code_uuids"], "out_of_range"],
      [{ name: "X", interval: { months: 6 }, trigger_procedure_code_uuids: [code, code] }, ["body", "trigger_procedure_code_uuids"], "value_error"],
      [{ name: "X", interval: { months: 6 }, trigger_procedure_code_uuids: [code], time_pattern: "XXO" }, ["body", "time_pattern"], "format"],
      [{ name: "X", interval: { months: 6 }, trigger_procedure_code_uuids: [code], color: "#FFF" }, ["body", "color"], "extra_forbidden"],
      [{ name: "X", interval: { months: 6 }, trigger_procedure_code_uuids: [code], seed_key: "prophy" }, ["body", "seed_key"], "read_only"],
    ]);
    const unknown = await req("POST", T, { name: "X", interval: { months: 6 }, trigger_procedure_code_uuids: [code, MISSING] });
    expect([unknown.status, unknown.body]).toEqual([404, { detail: `Procedure code ${MISSING} not found`, code: "not_found" }]);
    const foreign = await req("POST", T, { name: "X", interval: { months: 6 }, trigger_procedure_code_uuids: [await w.codeId("D1206", w.pathB)] });
    expect([foreign.status, foreign.body.code]).toEqual([404, "not_found"]);
    const badType = await req("POST", T, { name: "X", interval: { months: 6 }, trigger_procedure_code_uuids: [code], default_appointment_type_uuid: MISSING });
    expect([badType.status, badType.body.detail]).toEqual([404, "Appointment type not found"]);
    expect((await req("GET", `${T}?include_archived=true`)).body.total).toBe(before);
  });

  test("guarded: 401, 403 without recall.write, 404 for another org's member", async () => {
    await expectGuarded(w.t, w.orgA, w.orgB, "POST", T, "recall.write", {
      name: "G",
      interval: { months: 6 },
      trigger_procedure_code_uuids: [await w.codeId("D1206")],
    });
    await expectGuarded(w.t, w.orgA, w.orgB, "GET", T, "recall.read");
  });
});

describe("GET/PATCH /recall-types/{id}, archive", () => {
  test("PATCH: 200 with the new fields and version; 409 stale base_version; 422 zero interval; 404 missing or another org's; nothing changed on refusal", async () => {
    const type = await create();
    const r = await req("PATCH", `${T}/${type.id}`, { base_version: 1, interval: { months: 4 }, is_perio: true, time_pattern: null });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ version: 2, interval: { months: 4, weeks: 0, days: 0 }, is_perio: true, time_pattern: null });
    const stale = await req("PATCH", `${T}/${type.id}`, { base_version: 1, name: "Stale" });
    expect([stale.status, stale.body.code]).toEqual([409, "version_conflict"]);
    const zero = await req("PATCH", `${T}/${type.id}`, { base_version: 2, interval: { days: 0 } });
    expect([zero.status, zero.body.code]).toEqual([422, "invalid_interval"]);
    const badCode = await req("PATCH", `${T}/${type.id}`, { base_version: 2, trigger_procedure_code_uuids: [MISSING] });
    expect(badCode.status).toBe(404);
    expect((await req("PATCH", `${T}/${MISSING}`, { base_version: 1, name: "X" })).status).toBe(404);
    const other = (await w.t.request("GET", `${w.pathB}/recall-types`, { token: w.token })).body.items[0];
    expect((await req("PATCH", `${T}/${other.id}`, { base_version: 1, name: "X" })).status).toBe(404);
    expect((await req("GET", `${T}/${other.id}`)).status).toBe(404);
    expect((await req("GET", `${T}/${type.id}`)).body).toEqual(r.body);
    expect((await req("PATCH", `${T}/${type.id}`, { base_version: 2, version: 3 })).status).toBe(422);
  });

  test("archive: leaves the list (include_archived shows it), answers with archived_at; twice is the same; no PATCH, no new recalls (422)", async () => {
    const type = await create();
    const a = await req("POST", `${T}/${type.id}/archive`);
    expect(a.status).toBe(200);
    const archivedAt = a.body.archived_at as string;
    expect([archivedAt.endsWith("Z"), a.body.version]).toEqual([true, 2]);
    expect((await req("POST", `${T}/${type.id}/archive`)).body).toEqual(a.body);
    expect((await req("GET", T + "?page_size=200")).body.items.map((t: any) => t.id)).not.toContain(type.id);
    expect((await req("GET", `${T}?include_archived=true&page_size=200`)).body.items.map((t: any) => t.id)).toContain(type.id);
    expect((await req("GET", `${T}/${type.id}`)).body.archived_at).toBe(archivedAt);
    const patch = await req("PATCH", `${T}/${type.id}`, { base_version: 2, name: "Again" });
    expect([patch.status, patch.body.code]).toEqual([422, "recall_type_archived"]);
    const p = await w.patient();
    const recall = await req("POST", `${w.A}/patients/${p.id}/recalls`, { recall_type_uuid: type.id });
    expect([recall.status, recall.body.code]).toEqual([422, "recall_type_archived"]);
    expect((await req("POST", `${T}/${MISSING}/archive`)).status).toBe(404);
    await expectGuarded(w.t, w.orgA, w.orgB, "POST", `${T}/${type.id}/archive`, "recall.write");
  });
});
