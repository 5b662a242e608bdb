import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { medicalApp } from "./fixtures";

let m: Awaited<ReturnType<typeof medicalApp>>;
beforeAll(async () => {
  m = await medicalApp();
});
afterAll(() => m.t.close());

const names = async (patientId: string, query = "") =>
  (await m.t.request("GET", `${m.path(patientId, "diseases")}${query}`, { token: m.token })).body.items.map((d: { disease_name: string }) => d.disease_name);

describe("diseases and problems", () => {
  test("create with every field; defaults when only the name is sent", async () => {
    const p = await m.createPatient();
    const body = {
      disease_name: "Type 2 diabetes",
      icd_code: "E11.9",
      snomed_code: "44054006",
      problem_status: "active",
      date_start: "2015-03-01",
      date_stop: null,
      note: "Diet controlled",
    };
    const r = await m.t.request("POST", m.path(p.id, "diseases"), { token: m.token, body });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ ...body, patient: { uuid: p.id, name: "Pat Ient" }, version: 1 });
    const min = await m.createRecord(p.id, "diseases", { disease_name: "Asthma" });
    expect(min).toMatchObject({
      disease_name: "Asthma",
      icd_code: null,
      snomed_code: null,
      problem_status: "active",
      date_start: null,
      date_stop: null,
      note: null,
    });
  });

  test.each([
    ["missing name", { disease_name: undefined }, ["body", "disease_name"], "missing"],
    ["blank name", { disease_name: "" }, ["body", "disease_name"], "out_of_range"],
    ["bad icd_code", { icd_code: "E11 9!" }, ["body", "icd_code"], "format"],
    ["icd_code too long", { icd_code: "E".repeat(21) }, ["body", "icd_code"], "format"],
    ["bad snomed_code", { snomed_code: "12ab" }, ["body", "snomed_code"], "format"],
    ["unknown problem_status", { problem_status: "chronic" }, ["body", "problem_status"], "enum"],
    ["bad date_start", { date_start: "01/02/2020" }, ["body", "date_start"], "format"],
    ["note not a string", { note: 5 }, ["body", "note"], "type_error"],
  ])("422 on create: %s; nothing written", async (_name, body, loc, type) => {
    const p = await m.createPatient();
    const r = await m.t.request("POST", m.path(p.id, "diseases"), { token: m.token, body: { disease_name: "Gout", ...body } });
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ loc, type });
    expect(await names(p.id)).toEqual([]);
  });

  test("date_stop before date_start is 422 invalid_date_range, on create and against the stored dates on PATCH", async () => {
    const p = await m.createPatient();
    const r = await m.t.request("POST", m.path(p.id, "diseases"), {
      token: m.token,
      body: { disease_name: "Gout", date_start: "2020-05-02", date_stop: "2020-05-01" },
    });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: "invalid_date_range", detail: [{ loc: ["body", "date_stop"], type: "value_error" }] });
    const d = await m.createRecord(p.id, "diseases", { disease_name: "Gout", date_start: "2020-05-02" });
    const same = await m.t.request("PATCH", m.path(p.id, "diseases", d.id), {
      token: m.token,
      body: { base_version: 1, date_stop: "2020-05-02", problem_status: "resolved" },
    });
    expect(same.body).toMatchObject({ date_stop: "2020-05-02", problem_status: "resolved", version: 2 });
    const early = await m.t.request("PATCH", m.path(p.id, "diseases", d.id), { token: m.token, body: { base_version: 2, date_start: "2020-06-01" } });
    expect(early.status).toBe(422);
    expect(early.body.code).toBe("invalid_date_range");
    expect(await m.rowOf("diseases", d.id)).toMatchObject({ date_start: "2020-05-02", date_stop: "2020-05-02", version: 2 });
    // clearing a date lifts the rule
    const cleared = await m.t.request("PATCH", m.path(p.id, "diseases", d.id), {
      token: m.token,
      body: { base_version: 2, date_start: "2020-06-01", date_stop: null },
    });
    expect(cleared.body).toMatchObject({ date_start: "2020-06-01", date_stop: null, version: 3 });
  });

  test("problem_status filter; archived ones leave the list and are 404 by id", async () => {
    const p = await m.createPatient();
    await m.createRecord(p.id, "diseases", { disease_name: "Asthma" });
    await m.createRecord(p.id, "diseases", { disease_name: "Fracture", problem_status: "resolved" });
    await m.createRecord(p.id, "diseases", { disease_name: "Hepatitis A", problem_status: "inactive" });
    const gone = await m.createRecord(p.id, "diseases", { disease_name: "Mistake" });
    await m.t.request("POST", `${m.path(p.id, "diseases", gone.id)}/archive`, { token: m.token });
    expect(await names(p.id)).toEqual(["Asthma", "Fracture", "Hepatitis A"]);
    expect(await names(p.id, "?problem_status=active")).toEqual(["Asthma"]);
    expect(await names(p.id, "?problem_status=resolved")).toEqual(["Fracture"]);
    expect(await names(p.id, "?problem_status=inactive")).toEqual(["Hepatitis A"]);
    expect((await m.t.request("GET", m.path(p.id, "diseases", gone.id), { token: m.token })).status).toBe(404);
    expect((await m.t.request("PATCH", m.path(p.id, "diseases", gone.id), { token: m.token, body: { base_version: 2, note: "x" } })).status).toBe(404);
    const bad = await m.t.request("GET", `${m.path(p.id, "diseases")}?problem_status=chronic`, { token: m.token });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ["query", "problem_status"], type: "enum" });
  });
});
