import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, twoOrgApp, type TestApp } from "@tests/helpers";
import type { EventEnvelope } from "@/platform/events/envelope";
import { JSON_HEADERS, MISSING, newLocation, newProvider, snapshot } from "./fixtures";

let t: TestApp;
let admin: string;
let orgA: string;
let orgB: string;
let locationId: string;
let theirLocation: string;
let provider: { id: string };
let theirProvider: { id: string };
let writer: { userId: string; token: string };
let reader: string;
let chartOnly: string;
let memberOfB: string;
let events: EventEnvelope[];

const P = (orgId: string, rest: string) => `/api/v1/${orgId}/clinical-notes${rest}`;
const rules = (orgId: string, rest = "") => P(orgId, `/auto-rules${rest}`);
const templates = (orgId: string, rest = "") => P(orgId, `/templates${rest}`);

let n = 0;
async function newRule(body: Record<string, unknown> = {}, orgId = orgA) {
  const r = await t.request("POST", rules(orgId), { token: admin, body: { name: `Rule ${n++}`, trigger_event: "appointment_completed", ...body } });
  if (r.status !== 201) throw new Error(`create rule failed: ${r.status} ${r.text}`);
  return r.body;
}
async function newTemplate(body: Record<string, unknown> = {}, orgId = orgA) {
  const r = await t.request("POST", templates(orgId), { token: admin, body: { name: `Template ${n++}`, body: "{{procedure_code}} on {{tooth}}.", ...body } });
  if (r.status !== 201) throw new Error(`create template failed: ${r.status} ${r.text}`);
  return r.body;
}

beforeAll(async () => {
  const w = await twoOrgApp(
    {
      writer: ["clinical.notes.read", "clinical.notes.write"],
      reader: ["clinical.notes.read"],
      chartOnly: ["clinical.read", "clinical.write", "clinical.notes.sign"],
      memberOfB: { org: "B", keys: ["clinical.notes.read", "clinical.notes.write"] },
    },
    { events: true },
  );
  ({ t, admin, orgA, orgB, events } = w);
  writer = w.members.writer;
  ({ reader, chartOnly, memberOfB } = w.tokens);
  locationId = await newLocation(t, orgA, "North Office");
  theirLocation = await newLocation(t, orgB);
  provider = await newProvider(t, orgA, { first_name: "Ada", last_name: "Molar" });
  theirProvider = await newProvider(t, orgB);
});
afterAll(() => t.close());

describe("POST /auto-rules", () => {
  test("201 with every field and refs; code pattern upper-cased; audited; event with ids only", async () => {
    const tpl = await newTemplate({ name: "Crown seat" });
    const before = events.length;
    const r = await t.request("POST", rules(orgA), {
      token: writer.token,
      body: {
        name: "Crowns",
        description: "Seat note for crowns",
        is_active: false,
        priority: 10,
        trigger_event: "procedure_completed",
        merge_strategy: "append",
        procedure_category: "restorative",
        procedure_code_pattern: "d27*",
        location_uuid: locationId,
        provider_uuid: provider.id,
        template_uuid: tpl.id,
      },
    });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: r.body.created_at,
      name: "Crowns",
      description: "Seat note for crowns",
      is_active: false,
      priority: 10,
      trigger_event: "procedure_completed",
      merge_strategy: "append",
      procedure_category: "restorative",
      procedure_code_pattern: "D27*",
      location: { uuid: locationId, name: "North Office" },
      provider: { uuid: provider.id, name: "Ada Molar" },
      template: { uuid: tpl.id, name: "Crown seat" },
      deleted_at: null,
    });
    expect((await auditOf(t, orgA, r.body.id))[0]).toMatchObject({ action: "auto_note_rule.created", actor_id: writer.userId });
    const ev = events.slice(before).find((e) => e.type === "auto_note_rule.created")!;
    expect(ev.data).toEqual({ id: r.body.id, trigger_event: "procedure_completed" });
  });

  test("defaults: active, priority 0, separate_note, no filters or refs", async () => {
    const r = await newRule({ name: "Visit summary" });
    expect(r).toMatchObject({
      is_active: true,
      priority: 0,
      merge_strategy: "separate_note",
      description: null,
      procedure_category: null,
      procedure_code_pattern: null,
      location: null,
      provider: null,
      template: null,
    });
  });

  test.each([
    ["missing name", { name: undefined }, ["body", "name"], "missing"],
    ["blank name", { name: " " }, ["body", "name"], "out_of_range"],
    ["missing trigger_event", { trigger_event: undefined }, ["body", "trigger_event"], "missing"],
    ["bad trigger_event", { trigger_event: "tooth_pulled" }, ["body", "trigger_event"], "enum"],
    ["bad merge_strategy", { merge_strategy: "overwrite" }, ["body", "merge_strategy"], "enum"],
    ["priority not an integer", { priority: 1.5 }, ["body", "priority"], "type_error"],
    ["priority out of range", { priority: 1001 }, ["body", "priority"], "out_of_range"],
    ["is_active a string", { is_active: "yes" }, ["body", "is_active"], "type_error"],
    ["bad procedure_category", { trigger_event: "procedure_completed", procedure_category: "magic" }, ["body", "procedure_category"], "enum"],
    ["bad code pattern", { trigger_event: "procedure_completed", procedure_code_pattern: "D27%" }, ["body", "procedure_code_pattern"], "format"],
    ["location_uuid not a uuid", { location_uuid: "north" }, ["body", "location_uuid"], "format"],
    ["unknown field", { colour: "red" }, ["body", "colour"], "extra_forbidden"],
    ["read-only template", { template: { uuid: MISSING } }, ["body", "template"], "read_only"],
    ["read-only version", { version: 3 }, ["body", "version"], "read_only"],
  ])("422 %s; nothing written", async (_name, patch, loc, type) => {
    const before = await snapshot(t, orgA);
    const r = await t.request("POST", rules(orgA), { token: admin, body: { name: "Bad", trigger_event: "appointment_completed", ...patch } });
    expect(r.status).toBe(422);
    expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    expect(await snapshot(t, orgA)).toEqual(before);
  });

  test("422 procedure filters on a rule that is not procedure_completed; malformed JSON; 409 duplicate name; nothing written", async () => {
    await newRule({ name: "Hygiene recall" });
    const before = await snapshot(t, orgA);
    for (const field of [{ procedure_category: "preventive" }, { procedure_code_pattern: "D1*" }]) {
      const r = await t.request("POST", rules(orgA), { token: admin, body: { name: "Exam", trigger_event: "exam_completed", ...field } });
      expect(r.status).toBe(422);
      expect(r.body).toMatchObject({ code: "procedure_filter_not_applicable", detail: [{ loc: ["body", Object.keys(field)[0]] }] });
    }
    const bad = await t.request("POST", rules(orgA), { token: admin, rawBody: "{", headers: JSON_HEADERS });
    expect(bad.body.detail[0].type).toBe("json_invalid");
    const dup = await t.request("POST", rules(orgA), { token: admin, body: { name: "HYGIENE RECALL", trigger_event: "exam_completed" } });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ detail: "Another auto-note rule already has this name", code: "duplicate" });
    expect(await snapshot(t, orgA)).toEqual(before);
  });

  test("401; 403; 404 for a missing or another org's location, provider or template; non-member; nothing written", async () => {
    const theirTpl = await newTemplate({}, orgB);
    const before = await snapshot(t, orgA);
    const body = { name: "Refs", trigger_event: "appointment_completed" };
    expect((await t.request("POST", rules(orgA), { body })).status).toBe(401);
    for (const token of [reader, chartOnly]) expect((await t.request("POST", rules(orgA), { token, body })).status).toBe(403);
    for (const [extra, token, detail] of [
      [{ location_uuid: MISSING }, admin, "Location not found"],
      [{ location_uuid: theirLocation }, admin, "Location not found"],
      [{ provider_uuid: theirProvider.id }, admin, "Provider not found"],
      [{ template_uuid: MISSING }, admin, "Clinical note template not found"],
      [{ template_uuid: theirTpl.id }, admin, "Clinical note template not found"],
      [{}, memberOfB, "Organization not found"],
    ] as const) {
      const r = await t.request("POST", rules(orgA), { token, body: { ...body, ...extra } });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail, code: "not_found" });
    }
    expect(await snapshot(t, orgA)).toEqual(before);
  });
});

describe("GET /auto-rules", () => {
  let org: string;
  const names = async (qs = "") => {
    const r = await t.request("GET", rules(org, qs), { token: admin });
    expect(r.status).toBe(200);
    return r.body.items.map((x: { name: string }) => x.name);
  };
  beforeAll(async () => {
    org = (await t.createOrg()).id;
    await newRule({ name: "beta", priority: 5 }, org);
    await newRule({ name: "Alpha", priority: 5, trigger_event: "exam_completed" }, org);
    await newRule({ name: "gamma", priority: 9, is_active: false }, org);
    await newRule({ name: "delta", priority: 0, trigger_event: "procedure_completed" }, org);
    const gone = await newRule({ name: "archived", priority: 100 }, org);
    expect((await t.request("POST", rules(org, `/${gone.id}/archive`), { token: admin })).status).toBe(200);
  });

  test("ordered by priority descending, then name; archived rules left out; paged", async () => {
    expect(await names()).toEqual(["gamma", "Alpha", "beta", "delta"]);
    const page = await t.request("GET", rules(org, "?page=2&page_size=3"), { token: admin });
    expect(page.body).toMatchObject({ page: 2, page_size: 3, total: 4 });
    expect(page.body.items.map((x: { name: string }) => x.name)).toEqual(["delta"]);
  });

  test("filters trigger_event and is_active", async () => {
    expect(await names("?trigger_event=appointment_completed")).toEqual(["gamma", "beta"]);
    expect(await names("?is_active=false")).toEqual(["gamma"]);
    expect(await names("?is_active=true&trigger_event=exam_completed")).toEqual(["Alpha"]);
  });

  test.each([
    ["bad trigger_event", "?trigger_event=x", ["query", "trigger_event"], "enum"],
    ["bad is_active", "?is_active=maybe", ["query", "is_active"], "enum"],
    ["page_size over 200", "?page_size=500", ["query", "page_size"], "out_of_range"],
    ["unknown parameter", "?name=beta", ["query", "name"], "extra_forbidden"],
  ])("422 %s", async (_name, qs, loc, type) => {
    const r = await t.request("GET", rules(org, qs), { token: admin });
    expect(r.status).toBe(422);
    expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
  });

  test("401; 403; another org sees only its own rules; non-member 404", async () => {
    expect((await t.request("GET", rules(orgA))).status).toBe(401);
    expect((await t.request("GET", rules(orgA), { token: chartOnly })).status).toBe(403);
    expect((await t.request("GET", rules(orgA), { token: reader })).body.items.map((x: { name: string }) => x.name)).not.toContain("gamma");
    expect((await t.request("GET", rules(org), { token: memberOfB })).status).toBe(404);
  });
});

describe("GET /auto-rules/{rule_uuid}", () => {
  test("200 with ETag; 401; 403; 404 for missing, archived, another org's rule, non-member", async () => {
    const rule = await newRule({ provider_uuid: provider.id });
    const r = await t.request("GET", rules(orgA, `/${rule.id}`), { token: reader });
    expect(r.status).toBe(200);
    expect(r.body).toEqual(rule);
    expect(r.headers.get("etag")).toBe('"1"');
    expect((await t.request("GET", rules(orgA, `/${rule.id}`))).status).toBe(401);
    expect((await t.request("GET", rules(orgA, `/${rule.id}`), { token: chartOnly })).status).toBe(403);
    const gone = await newRule();
    await t.request("POST", rules(orgA, `/${gone.id}/archive`), { token: admin });
    const theirs = await newRule({}, orgB);
    for (const [path, token, detail] of [
      [rules(orgA, `/${MISSING}`), admin, "Auto-note rule not found"],
      [rules(orgA, `/${gone.id}`), admin, "Auto-note rule not found"],
      [rules(orgA, `/${theirs.id}`), admin, "Auto-note rule not found"],
      [rules(orgB, `/${rule.id}`), memberOfB, "Auto-note rule not found"],
      [rules(orgA, `/${rule.id}`), memberOfB, "Organization not found"],
    ] as const) {
      const res = await t.request("GET", path, { token });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail, code: "not_found" });
    }
  });
});

describe("PATCH /auto-rules/{rule_uuid}", () => {
  test("200 changes fields and clears refs; version; audited; event changed_fields", async () => {
    const rule = await newRule({ name: "Patchable", location_uuid: locationId, trigger_event: "procedure_completed", procedure_code_pattern: "D1*" });
    const before = events.length;
    const r = await t.request("PATCH", rules(orgA, `/${rule.id}`), {
      token: writer.token,
      body: { base_version: 1, priority: 7, merge_strategy: "prepend", location_uuid: null, procedure_code_pattern: "d11?0", is_active: false },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      version: 2,
      priority: 7,
      merge_strategy: "prepend",
      location: null,
      procedure_code_pattern: "D11?0",
      is_active: false,
      name: "Patchable",
    });
    expect((await t.request("GET", rules(orgA, `/${rule.id}`), { token: admin })).body).toEqual(r.body);
    expect((await auditOf(t, orgA, rule.id)).map((a) => a.action)).toEqual(["auto_note_rule.created", "auto_note_rule.updated"]);
    const ev = events.slice(before).find((e) => e.type === "auto_note_rule.updated")!;
    expect([...(ev.data.changed_fields as string[])].sort()).toEqual(["is_active", "location_id", "merge_strategy", "priority", "procedure_code_pattern"]);
    const same = await t.request("PATCH", rules(orgA, `/${rule.id}`), { token: admin, body: { base_version: 2, name: "patchable" } });
    expect(same.status).toBe(200); // its own name, differently cased, is not a duplicate
  });

  test("409 stale and duplicate name; 422 filters left on a changed trigger, schema rules; 404s; 401; 403; nothing changed", async () => {
    await newRule({ name: "Taken" });
    const rule = await newRule({ name: "Mine", trigger_event: "procedure_completed", procedure_category: "endodontics" });
    const theirs = await newRule({}, orgB);
    const before = await snapshot(t, orgA);
    const patch = (body: Record<string, unknown>, token = admin, path = rules(orgA, `/${rule.id}`)) => t.request("PATCH", path, { token, body });
    expect((await patch({ base_version: 2, priority: 1 })).body.code).toBe("version_conflict");
    expect((await patch({ base_version: 1, name: "taken" })).status).toBe(409);
    const trig = await patch({ base_version: 1, trigger_event: "exam_completed" });
    expect(trig.status).toBe(422);
    expect(trig.body).toMatchObject({ code: "procedure_filter_not_applicable", detail: [{ loc: ["body", "procedure_category"] }] });
    for (const [body, loc, type] of [
      [{ priority: 1 }, ["body", "base_version"], "missing"],
      [{ base_version: 1, priority: -1 }, ["body", "priority"], "out_of_range"],
      [{ base_version: 1, name: null }, ["body", "name"], "type_error"],
      [{ base_version: 1, created_at: "2026-01-01T00:00:00Z" }, ["body", "created_at"], "read_only"],
    ] as const) {
      const r = await patch(body);
      expect(r.status).toBe(422);
      expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    }
    expect((await patch({ base_version: 1, provider_uuid: theirProvider.id })).body).toEqual({ detail: "Provider not found", code: "not_found" });
    expect((await patch({ base_version: 1 }, admin, rules(orgA, `/${MISSING}`))).status).toBe(404);
    expect((await patch({ base_version: 1 }, admin, rules(orgA, `/${theirs.id}`))).status).toBe(404);
    expect((await patch({ base_version: 1 }, memberOfB)).status).toBe(404);
    expect((await t.request("PATCH", rules(orgA, `/${rule.id}`), { body: { base_version: 1 } })).status).toBe(401);
    expect((await patch({ base_version: 1, priority: 2 }, reader)).status).toBe(403);
    expect(await snapshot(t, orgA)).toEqual(before);
    expect((await snapshot(t, orgB)).rules.find((r) => r.id === theirs.id)!.version).toBe(1);
  });
});

describe("POST /auto-rules/{rule_uuid}/archive", () => {
  test("200 with deleted_at; then 404 and out of lists; audited; 401; 403; 404 other org; nothing changed on refusal", async () => {
    const rule = await newRule({ name: "To archive" });
    const theirs = await newRule({}, orgB);
    expect((await t.request("POST", rules(orgA, `/${rule.id}/archive`))).status).toBe(401);
    expect((await t.request("POST", rules(orgA, `/${rule.id}/archive`), { token: reader })).status).toBe(403);
    expect((await t.request("POST", rules(orgA, `/${theirs.id}/archive`), { token: admin })).status).toBe(404);
    expect((await t.request("POST", rules(orgA, `/${rule.id}/archive`), { token: memberOfB })).status).toBe(404);
    expect((await snapshot(t, orgB)).rules.find((r) => r.id === theirs.id)!.deleted_at).toBeNull();
    const r = await t.request("POST", rules(orgA, `/${rule.id}/archive`), { token: writer.token });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: rule.id, version: 2, deleted_at: expect.stringMatching(/Z$/) });
    expect((await t.request("GET", rules(orgA, `/${rule.id}`), { token: admin })).status).toBe(404);
    expect((await t.request("POST", rules(orgA, `/${rule.id}/archive`), { token: admin })).status).toBe(404);
    expect((await auditOf(t, orgA, rule.id)).at(-1)).toMatchObject({ action: "auto_note_rule.archived" });
    // the name is free again
    expect((await newRule({ name: "To archive" })).name).toBe("To archive");
  });
});

describe("note templates", () => {
  test("create, get, list by name, patch; audited", async () => {
    const org = (await t.createOrg()).id;
    const c = await t.request("POST", templates(org), {
      token: admin,
      body: { name: "Zirconia crown", body: "Seated {{procedure_code}} on {{ tooth }} for {{patient_name}}." },
    });
    expect(c.status).toBe(201);
    expect(c.body).toEqual({
      id: expect.any(String),
      name: "Zirconia crown",
      body: "Seated {{procedure_code}} on {{ tooth }} for {{patient_name}}.",
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: c.body.created_at,
      deleted_at: null,
    });
    await newTemplate({ name: "Amalgam" }, org);
    expect((await t.request("GET", templates(org), { token: admin })).body).toMatchObject({
      total: 2,
      items: [{ name: "Amalgam" }, { name: "Zirconia crown" }],
    });
    expect((await t.request("GET", templates(org, `/${c.body.id}`), { token: admin })).body).toEqual(c.body);
    const p = await t.request("PATCH", templates(org, `/${c.body.id}`), { token: admin, body: { base_version: 1, body: "Seated {{procedure_description}}." } });
    expect(p.body).toMatchObject({ version: 2, body: "Seated {{procedure_description}}.", name: "Zirconia crown" });
    expect((await auditOf(t, org, c.body.id)).map((a) => a.action)).toEqual(["clinical_note_template.created", "clinical_note_template.updated"]);
  });

  test("422 unknown placeholders and schema rules; 409 stale; nothing written", async () => {
    const tpl = await newTemplate();
    const before = await snapshot(t, orgA);
    const unknown = await t.request("POST", templates(orgA), { token: admin, body: { name: "Typo", body: "Done on {{toth}}." } });
    expect(unknown.status).toBe(422);
    expect(unknown.body).toMatchObject({ code: "unknown_placeholder", detail: [{ loc: ["body", "body"] }] });
    const unknownPatch = await t.request("PATCH", templates(orgA, `/${tpl.id}`), { token: admin, body: { base_version: 1, body: "{{ssn}}" } });
    expect(unknownPatch.body.code).toBe("unknown_placeholder");
    for (const [body, loc, type] of [
      [{ body: "x" }, ["body", "name"], "missing"],
      [{ name: "x" }, ["body", "body"], "missing"],
      [{ name: "x", body: 3 }, ["body", "body"], "type_error"],
      [{ name: "x", body: "x", note_type: "exam" }, ["body", "note_type"], "extra_forbidden"],
    ] as const) {
      const r = await t.request("POST", templates(orgA), { token: admin, body });
      expect(r.status).toBe(422);
      expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    }
    expect((await t.request("PATCH", templates(orgA, `/${tpl.id}`), { token: admin, body: { base_version: 9, name: "x" } })).status).toBe(409);
    expect(await snapshot(t, orgA)).toEqual(before);
  });

  test("archive: 409 template_in_use while a rule names it; then 200 once the rule is archived", async () => {
    const tpl = await newTemplate();
    const rule = await newRule({ template_uuid: tpl.id });
    const before = await snapshot(t, orgA);
    const inUse = await t.request("POST", templates(orgA, `/${tpl.id}/archive`), { token: admin });
    expect(inUse.status).toBe(409);
    expect(inUse.body.code).toBe("template_in_use");
    expect(await snapshot(t, orgA)).toEqual(before);
    await t.request("POST", rules(orgA, `/${rule.id}/archive`), { token: admin });
    const ok = await t.request("POST", templates(orgA, `/${tpl.id}/archive`), { token: admin });
    expect(ok.status).toBe(200);
    expect(ok.body.deleted_at).toEqual(expect.stringMatching(/Z$/));
    expect((await t.request("GET", templates(orgA, `/${tpl.id}`), { token: admin })).status).toBe(404);
  });

  test("401, 403 and cross-org 404 on every template route; nothing changed", async () => {
    const tpl = await newTemplate();
    const theirs = await newTemplate({}, orgB);
    const before = await snapshot(t, orgA);
    const calls: [string, string, unknown?][] = [
      ["GET", templates(orgA)],
      ["POST", templates(orgA), { name: "n", body: "b" }],
      ["GET", templates(orgA, `/${tpl.id}`)],
      ["PATCH", templates(orgA, `/${tpl.id}`), { base_version: 1, name: "n" }],
      ["POST", templates(orgA, `/${tpl.id}/archive`)],
    ];
    for (const [method, path, body] of calls) {
      expect((await t.request(method, path, { body })).status).toBe(401);
      expect((await t.request(method, path, { token: chartOnly, body })).status).toBe(403);
      expect((await t.request(method, path, { token: memberOfB, body })).status).toBe(404);
    }
    for (const token of [reader]) {
      expect((await t.request("POST", templates(orgA), { token, body: { name: "n", body: "b" } })).status).toBe(403);
      expect((await t.request("PATCH", templates(orgA, `/${tpl.id}`), { token, body: { base_version: 1, name: "n" } })).status).toBe(403);
    }
    for (const [method, body] of [["GET"], ["PATCH", { base_version: 1, name: "n" }]] as const) {
      const r = await t.request(method, templates(orgA, `/${theirs.id}`), { token: admin, body });
      expect(r.body).toEqual({ detail: "Clinical note template not found", code: "not_found" });
    }
    expect((await t.request("POST", templates(orgA, `/${theirs.id}/archive`), { token: admin })).status).toBe(404);
    expect((await t.request("GET", templates(orgA, `/${MISSING}`), { token: admin })).status).toBe(404);
    expect(await snapshot(t, orgA)).toEqual(before);
    expect((await snapshot(t, orgB)).templates.find((x) => x.id === theirs.id)).toMatchObject({ version: 1, deleted_at: null });
  });
});
