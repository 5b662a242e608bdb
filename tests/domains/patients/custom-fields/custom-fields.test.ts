import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { auditOf, twoOrgApp, type TestApp } from "@tests/helpers";
import { patientFieldDefinitions, patientFieldValues } from "@db/tenant/custom-fields";
import { all } from "@/platform/db/work";
import { orgDb } from "@tests/domains/patients/record/fixtures";
import { captureEvents, MALFORMED, newPatient } from "@tests/domains/patients/record/record-helpers";
import { expectGuarded } from "@tests/helpers";

let t: TestApp;
let token: string;
let a: string;
let b: string;
let A: string;
let B: string;
let eventsA: Awaited<ReturnType<typeof captureEvents>>;
const MISSING = "01a1fe29-0000-7000-8000-000000000000";

beforeAll(async () => {
  ({ t, admin: token, orgA: a, orgB: b, pathA: A, pathB: B } = await twoOrgApp());
  eventsA = captureEvents(t, a);
});
afterAll(() => t.close());

let n = 0;
const define = async (body: Record<string, unknown>, org = A) => {
  const r = await t.request("POST", `${org}/patient-field-definitions`, { token, body: { name: `Field ${n++}`, ...body } });
  if (r.status !== 201) throw new Error(`define failed: ${r.status} ${r.text}`);
  return r.body;
};
const definitionRows = async (org: string) => (await orgDb(t, org)).read((d) => all(d.select().from(patientFieldDefinitions)));
const valueRows = async (org: string, patientId: string) =>
  (await orgDb(t, org)).read((d) => all(d.select().from(patientFieldValues).where(eq(patientFieldValues.patient_id, patientId))));
const put = (patientId: string, defId: string, body: unknown, org = A) =>
  t.request("PUT", `${org}/patients/${patientId}/field-values/${defId}`, { token, body });

describe("field definitions", () => {
  test("create each type: 201 with defaults; pick_list keeps its options; audited", async () => {
    const r = await t.request("POST", `${A}/patient-field-definitions`, { token, body: { name: "Referral code", field_type: "text" } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      name: "Referral code",
      field_type: "text",
      pick_list_options: null,
      is_required: false,
      item_order: 0,
      description: null,
      version: 1,
      deleted_at: null,
    });
    const pick = await t.request("POST", `${A}/patient-field-definitions`, {
      token,
      body: { name: "Shirt size", field_type: "pick_list", pick_list_options: ["S", "M", "L"], is_required: true, item_order: 3, description: "For the team" },
    });
    expect(pick.status).toBe(201);
    expect(pick.body).toMatchObject({
      field_type: "pick_list",
      pick_list_options: ["S", "M", "L"],
      is_required: true,
      item_order: 3,
      description: "For the team",
    });
    for (const field_type of ["number", "date", "boolean"])
      expect((await t.request("POST", `${A}/patient-field-definitions`, { token, body: { name: `A ${field_type}`, field_type } })).status).toBe(201);
    expect((await auditOf(t, a, pick.body.id)).map((e: any) => e.action)).toEqual(["patient_field_definition.created"]);
    const ev = (await eventsA("patient_field_definition.created")).find((e) => e.resource_id === pick.body.id)!;
    expect(ev.data).toEqual({ id: pick.body.id, field_type: "pick_list" });
  });

  test("409 duplicate active name (ignoring case); reusable after archive", async () => {
    const d = await define({ name: "Insurance note", field_type: "text" });
    const dup = await t.request("POST", `${A}/patient-field-definitions`, { token, body: { name: "INSURANCE NOTE", field_type: "number" } });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe("duplicate");
    await t.request("POST", `${A}/patient-field-definitions/${d.id}/archive`, { token });
    expect((await t.request("POST", `${A}/patient-field-definitions`, { token, body: { name: "Insurance note", field_type: "number" } })).status).toBe(201);
  });

  test.each([
    [{ field_type: "text" }, ["body", "name"], "missing"],
    [{ name: "X" }, ["body", "field_type"], "missing"],
    [{ name: "X", field_type: "color" }, ["body", "field_type"], "enum"],
    [{ name: "X", field_type: "pick_list" }, ["body", "pick_list_options"], "value_error"],
    [{ name: "X", field_type: "pick_list", pick_list_options: [] }, ["body", "pick_list_options"], "out_of_range"],
    [{ name: "X", field_type: "pick_list", pick_list_options: ["a", "A"] }, ["body", "pick_list_options"], "value_error"],
    [{ name: "X", field_type: "text", pick_list_options: ["a"] }, ["body", "pick_list_options"], "value_error"],
    [{ name: "X", field_type: "text", is_required: "yes" }, ["body", "is_required"], "type_error"],
    [{ name: "X", field_type: "text", item_order: -1 }, ["body", "item_order"], "out_of_range"],
    [{ name: "X", field_type: "text", item_order: 1.5 }, ["body", "item_order"], "type_error"],
    [{ name: "X", field_type: "text", colour: "red" }, ["body", "colour"], "extra_forbidden"],
  ])("create 422 %j; nothing is created", async (body, loc, type) => {
    const before = (await definitionRows(a)).length;
    const r = await t.request("POST", `${A}/patient-field-definitions`, { token, body });
    expect(r.status).toBe(422);
    expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    expect((await definitionRows(a)).length).toBe(before);
  });

  test("create: malformed JSON 422; guarded by patients.settings.write", async () => {
    expect((await t.request("POST", `${A}/patient-field-definitions`, { token, ...MALFORMED })).status).toBe(422);
    const before = (await definitionRows(a)).length;
    await expectGuarded(t, a, b, "POST", `${A}/patient-field-definitions`, "patients.settings.write", { name: "Guarded", field_type: "text" });
    expect((await definitionRows(a)).length).toBe(before);
  });

  test("list: by item_order then name, paged, field_type filter, include_archived; 422 bad query; guarded", async () => {
    const org = (await t.createOrg()).id;
    const base = `/api/v1/${org}/patient-field-definitions`;
    const mk = async (body: Record<string, unknown>) => (await t.request("POST", base, { token, body })).body;
    await mk({ name: "Zeta", field_type: "text", item_order: 1 });
    await mk({ name: "Beta", field_type: "number", item_order: 2 });
    await mk({ name: "Alpha", field_type: "text", item_order: 2 });
    const old = await mk({ name: "Old", field_type: "date" });
    await t.request("POST", `${base}/${old.id}/archive`, { token });
    const r = await t.request("GET", base, { token });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ page: 1, page_size: 50, total: 3 });
    expect(r.body.items.map((i: any) => i.name)).toEqual(["Zeta", "Alpha", "Beta"]);
    expect((await t.request("GET", `${base}?page=2&page_size=2`, { token })).body.items.map((i: any) => i.name)).toEqual(["Beta"]);
    expect((await t.request("GET", `${base}?field_type=text`, { token })).body.items.map((i: any) => i.name)).toEqual(["Zeta", "Alpha"]);
    expect((await t.request("GET", `${base}?include_archived=true`, { token })).body.items.map((i: any) => i.name)).toEqual(["Old", "Zeta", "Alpha", "Beta"]);
    for (const q of ["?field_type=color", "?page_size=0", "?sort=name"]) expect((await t.request("GET", `${base}${q}`, { token })).status).toBe(422);
    await expectGuarded(t, org, b, "GET", base, "patients.read");
  });

  test("get and archive: 200; 404 missing, archived, another org's; guarded; nothing changes when refused", async () => {
    const d = await define({ field_type: "boolean" });
    const foreign = await define({ field_type: "boolean" }, B);
    expect((await t.request("GET", `${A}/patient-field-definitions/${d.id}`, { token })).body).toEqual(d);
    await expectGuarded(t, a, b, "GET", `${A}/patient-field-definitions/${d.id}`, "patients.read");
    await expectGuarded(t, a, b, "POST", `${A}/patient-field-definitions/${d.id}/archive`, "patients.settings.write");
    for (const id of [MISSING, foreign.id]) {
      expect((await t.request("GET", `${A}/patient-field-definitions/${id}`, { token })).status).toBe(404);
      const r = await t.request("POST", `${A}/patient-field-definitions/${id}/archive`, { token });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail: "Field definition not found", code: "not_found" });
    }
    expect((await definitionRows(b)).find((r) => r.id === foreign.id)!.deleted_at).toBeNull();
    const archived = await t.request("POST", `${A}/patient-field-definitions/${d.id}/archive`, { token });
    expect(archived.status).toBe(200);
    expect(archived.body).toMatchObject({ version: 2, deleted_at: expect.stringMatching(/Z$/) });
    expect((await t.request("GET", `${A}/patient-field-definitions/${d.id}`, { token })).status).toBe(404);
    expect((await t.request("POST", `${A}/patient-field-definitions/${d.id}/archive`, { token })).status).toBe(404);
  });
});

describe("field values", () => {
  test("set each type, replace, same value again is a no-op, list (absent when unset), clear; audit and events without the value", async () => {
    const p = await newPatient(t, a);
    const text = await define({ name: "Nickname", field_type: "text", item_order: 1 });
    const num = await define({ name: "Shoe size", field_type: "number", item_order: 2 });
    const date = await define({ name: "Consent date", field_type: "date", item_order: 3 });
    const flag = await define({ name: "Veteran", field_type: "boolean", item_order: 4 });
    const pick = await define({ name: "Size", field_type: "pick_list", pick_list_options: ["S", "M"], item_order: 5 });
    await define({ name: "Never set", field_type: "text", item_order: 0 });

    const set = await put(p.id, text.id, { value: "Sunny" });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ field_definition: { uuid: text.id, name: "Nickname" }, field_type: "text", value: "Sunny", version: 1 });
    expect((await put(p.id, num.id, { value: 10.5 })).body.value).toBe(10.5);
    expect((await put(p.id, date.id, { value: "2024-02-29" })).body.value).toBe("2024-02-29");
    expect((await put(p.id, flag.id, { value: false })).body.value).toBe(false);
    expect((await put(p.id, pick.id, { value: "M" })).body.value).toBe("M");

    const replaced = await put(p.id, text.id, { value: "Sunshine" });
    expect(replaced.body).toMatchObject({ id: set.body.id, value: "Sunshine", version: 2 });
    const same = await put(p.id, text.id, { value: "Sunshine" });
    expect(same.body).toMatchObject({ id: set.body.id, version: 2 });

    const list = await t.request("GET", `${A}/patients/${p.id}/field-values`, { token });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ page: 1, page_size: 100, total: 5 });
    expect(list.body.items.map((i: any) => [i.field_definition.name, i.value])).toEqual([
      ["Nickname", "Sunshine"],
      ["Shoe size", 10.5],
      ["Consent date", "2024-02-29"],
      ["Veteran", false],
      ["Size", "M"],
    ]);
    expect(
      (await t.request("GET", `${A}/patients/${p.id}/field-values?page=2&page_size=2`, { token })).body.items.map((i: any) => i.field_definition.name),
    ).toEqual(["Consent date", "Veteran"]);

    const cleared = await t.request("DELETE", `${A}/patients/${p.id}/field-values/${num.id}`, { token });
    expect(cleared.status).toBe(204);
    expect((await valueRows(a, p.id)).map((r) => r.field_definition_id).sort()).toEqual([text.id, date.id, flag.id, pick.id].sort());
    const again = await t.request("DELETE", `${A}/patients/${p.id}/field-values/${num.id}`, { token });
    expect(again.status).toBe(404);
    expect(again.body.detail).toBe("Field value not found");

    const audit = await auditOf(t, a, set.body.id);
    expect(audit.map((e: any) => e.action)).toEqual(["patient_field_value.set", "patient_field_value.set"]);
    expect(audit[1].before.value).toBe("Sunny");
    expect(audit[1].after.value).toBe("Sunshine");
    const ev = (await eventsA()).filter((e) => e.resource_type === "patient_field_value" && e.data.patient_id === p.id);
    expect(ev.map((e) => e.type)).toEqual([...Array(6).fill("patient_field_value.set"), "patient_field_value.cleared"]);
    expect(ev[0]!.data).toEqual({ id: set.body.id, patient_id: p.id, field_definition_id: text.id });
    expect(JSON.stringify(ev)).not.toContain("Sunny");
  });

  test("values of an archived definition leave the list and cannot be set or cleared (404)", async () => {
    const p = await newPatient(t, a);
    const d = await define({ field_type: "text" });
    await put(p.id, d.id, { value: "kept" });
    await t.request("POST", `${A}/patient-field-definitions/${d.id}/archive`, { token });
    expect((await t.request("GET", `${A}/patients/${p.id}/field-values`, { token })).body).toMatchObject({ items: [], total: 0 });
    const r = await put(p.id, d.id, { value: "new" });
    expect(r.status).toBe(404);
    expect(r.body.detail).toBe("Field definition not found");
    expect((await t.request("DELETE", `${A}/patients/${p.id}/field-values/${d.id}`, { token })).status).toBe(404);
    expect((await valueRows(a, p.id)).map((v) => v.value)).toEqual(["kept"]);
  });

  test.each([
    ["text", {}, { value: 5 }, "type_error"],
    ["text", {}, { value: "   " }, "out_of_range"],
    ["text", {}, { value: "x".repeat(4001) }, "out_of_range"],
    ["number", {}, { value: "5" }, "type_error"],
    ["date", {}, { value: "2024-02-30" }, "format"],
    ["date", {}, { value: "03/01/2024" }, "format"],
    ["date", {}, { value: 20240301 }, "type_error"],
    ["boolean", {}, { value: "true" }, "type_error"],
    ["pick_list", { pick_list_options: ["S", "M"] }, { value: "XL" }, "enum"],
    ["pick_list", { pick_list_options: ["S", "M"] }, { value: "s" }, "enum"],
    ["text", {}, { value: null }, "type_error"],
    ["number", {}, { value: [1] }, "type_error"],
    ["text", {}, {}, "missing"],
    ["text", {}, { value: "ok", note: "x" }, "extra_forbidden"],
  ])("set a %s field %j / %j: 422 %s; nothing is written", async (field_type, extra, body, type) => {
    const p = await newPatient(t, a);
    const d = await define({ field_type, ...extra });
    const r = await put(p.id, d.id, body);
    expect(r.status).toBe(422);
    expect(r.body.detail[0].type).toBe(type);
    expect(r.body.detail[0].loc.slice(0, 2)).toEqual(body && "note" in body ? ["body", "note"] : ["body", "value"]);
    expect(await valueRows(a, p.id)).toEqual([]);
  });

  test("422: malformed JSON, archived patient (patient_archived), clearing a required field (field_required); nothing changes", async () => {
    const p = await newPatient(t, a);
    const req = await define({ field_type: "number", is_required: true });
    expect((await t.request("PUT", `${A}/patients/${p.id}/field-values/${req.id}`, { token, ...MALFORMED })).status).toBe(422);
    await put(p.id, req.id, { value: 1 });
    const clear = await t.request("DELETE", `${A}/patients/${p.id}/field-values/${req.id}`, { token });
    expect(clear.status).toBe(422);
    expect(clear.body.code).toBe("field_required");
    expect((await put(p.id, req.id, { value: 2 })).status).toBe(200); // changing it is fine
    await t.request("POST", `${A}/patients/${p.id}/archive`, { token });
    const refused = await put(p.id, req.id, { value: 3 });
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe("patient_archived");
    expect((await valueRows(a, p.id)).map((v) => v.value)).toEqual([2]);
    // an archived patient's values stay readable
    expect((await t.request("GET", `${A}/patients/${p.id}/field-values`, { token })).body.total).toBe(1);
    expect((await t.request("GET", `${A}/patients/${p.id}/field-values?page_size=201`, { token })).status).toBe(422);
  });

  test("404 for other orgs' patients and definitions, and missing ones; nothing is written in either org", async () => {
    const p = await newPatient(t, a);
    const pB = await newPatient(t, b);
    const d = await define({ field_type: "text" });
    const dB = await define({ field_type: "text" }, B);
    await put(pB.id, dB.id, { value: "B's" }, B);
    const cases: [string, string, unknown?][] = [
      ["GET", `${A}/patients/${pB.id}/field-values`],
      ["GET", `${A}/patients/${MISSING}/field-values`],
      ["PUT", `${A}/patients/${pB.id}/field-values/${d.id}`, { value: "x" }],
      ["PUT", `${A}/patients/${pB.id}/field-values/${dB.id}`, { value: "x" }],
      ["PUT", `${A}/patients/${p.id}/field-values/${dB.id}`, { value: "x" }],
      ["PUT", `${A}/patients/${p.id}/field-values/${MISSING}`, { value: "x" }],
      ["DELETE", `${A}/patients/${pB.id}/field-values/${dB.id}`],
      ["DELETE", `${A}/patients/${p.id}/field-values/${dB.id}`],
      ["DELETE", `${A}/patients/${MISSING}/field-values/${d.id}`],
    ];
    for (const [method, path, body] of cases) expect([method, path, (await t.request(method, path, { token, body })).status]).toEqual([method, path, 404]);
    expect(await valueRows(a, p.id)).toEqual([]);
    expect((await valueRows(b, pB.id)).map((v) => v.value)).toEqual(["B's"]);
  });

  test("guarded: list needs patients.read; set and clear need patients.write", async () => {
    const p = await newPatient(t, a);
    const d = await define({ field_type: "boolean" });
    await expectGuarded(t, a, b, "GET", `${A}/patients/${p.id}/field-values`, "patients.read");
    const writer = await expectGuarded(t, a, b, "PUT", `${A}/patients/${p.id}/field-values/${d.id}`, "patients.write", { value: true });
    expect(await valueRows(a, p.id)).toEqual([]);
    expect((await t.request("PUT", `${A}/patients/${p.id}/field-values/${d.id}`, { token: writer, body: { value: true } })).status).toBe(200);
    await expectGuarded(t, a, b, "DELETE", `${A}/patients/${p.id}/field-values/${d.id}`, "patients.write");
    expect((await valueRows(a, p.id)).map((v) => v.value)).toEqual([true]);
  });
});
