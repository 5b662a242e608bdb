import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { auditOf, twoOrgApp, type TestApp } from "@tests/helpers";
import { patientTags, tagDefinitions } from "@db/tenant/patients";
import { all, get } from "@/platform/db/work";
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

const createTag = async (body: Record<string, unknown>, org = A) => {
  const r = await t.request("POST", `${org}/tag-definitions`, { token, body });
  if (r.status !== 201) throw new Error(`create tag failed: ${r.status} ${r.text}`);
  return r.body;
};
const tagRow = async (org: string, id: string) => (await orgDb(t, org)).read((d) => get(d.select().from(tagDefinitions).where(eq(tagDefinitions.id, id))));
const tagRowCount = async (org: string) => (await (await orgDb(t, org)).read((d) => all(d.select().from(tagDefinitions)))).length;
const patientTagRows = async (org: string, patientId: string) =>
  (await orgDb(t, org)).read((d) => all(d.select().from(patientTags).where(eq(patientTags.patient_id, patientId))));

describe("tag definitions", () => {
  test("create: 201 with the record; audited; tag_definition.created event with ids only", async () => {
    const r = await t.request("POST", `${A}/tag-definitions`, { token, body: { name: " VIP ", color: "#FFAA00", description: "Very important" } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ name: "VIP", color: "#FFAA00", description: "Very important", version: 1, deleted_at: null });
    expect(r.headers.get("etag")).toBe('"1"');
    const audit = await auditOf(t, a, r.body.id);
    expect(audit.map((e: any) => e.action)).toEqual(["tag_definition.created"]);
    const ev = (await eventsA("tag_definition.created")).find((e) => e.resource_id === r.body.id)!;
    expect(ev.data).toEqual({ id: r.body.id });
  });

  test("409 duplicate for an active name (ignoring case); an archived name may be reused", async () => {
    const first = await createTag({ name: "Recall due" });
    const dup = await t.request("POST", `${A}/tag-definitions`, { token, body: { name: "RECALL DUE" } });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe("duplicate");
    expect((await t.request("POST", `${A}/tag-definitions/${first.id}/archive`, { token })).status).toBe(200);
    const again = await t.request("POST", `${A}/tag-definitions`, { token, body: { name: "recall due" } });
    expect(again.status).toBe(201);
    // another org's names do not collide
    expect((await t.request("POST", `${B}/tag-definitions`, { token, body: { name: "recall due" } })).status).toBe(201);
  });

  test.each([
    [{}, ["body", "name"], "missing"],
    [{ name: "" }, ["body", "name"], "out_of_range"],
    [{ name: "x".repeat(101) }, ["body", "name"], "out_of_range"],
    [{ name: 12 }, ["body", "name"], "type_error"],
    [{ name: "Ok", color: "orange" }, ["body", "color"], "format"],
    [{ name: "Ok", color: "#12345" }, ["body", "color"], "format"],
    [{ name: "Ok", description: "d".repeat(501) }, ["body", "description"], "out_of_range"],
    [{ name: "Ok", id: MISSING }, ["body", "id"], "read_only"],
    [{ name: "Ok", priority: 1 }, ["body", "priority"], "extra_forbidden"],
  ])("create 422 %j; nothing is created", async (body, loc, type) => {
    const before = await tagRowCount(a);
    const r = await t.request("POST", `${A}/tag-definitions`, { token, body });
    expect(r.status).toBe(422);
    expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    expect(await tagRowCount(a)).toBe(before);
  });

  test("create 422 malformed JSON; guarded (401, 403 without patients.settings.write, 404 for outsiders)", async () => {
    const r = await t.request("POST", `${A}/tag-definitions`, { token, ...MALFORMED });
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ loc: ["body"], type: "json_invalid" });
    const before = await tagRowCount(a);
    const holder = await expectGuarded(t, a, b, "POST", `${A}/tag-definitions`, "patients.settings.write", { name: "Guarded" });
    expect(await tagRowCount(a)).toBe(before);
    expect((await t.request("POST", `${A}/tag-definitions`, { token: holder, body: { name: "Guarded" } })).status).toBe(201);
  });

  test("list: paged by name, search, include_archived; 422 for unknown or bad parameters; guarded", async () => {
    const P = (await t.createOrg()).id;
    const base = `/api/v1/${P}/tag-definitions`;
    for (const name of ["Charlie", "alpha", "Bravo", "Bravado"]) expect((await t.request("POST", base, { token, body: { name } })).status).toBe(201);
    const gone = (await t.request("GET", `${base}?search=char`, { token })).body.items[0];
    await t.request("POST", `${base}/${gone.id}/archive`, { token });
    const page1 = await t.request("GET", `${base}?page_size=2`, { token });
    expect(page1.status).toBe(200);
    expect(page1.body).toMatchObject({ page: 1, page_size: 2, total: 3 });
    expect(page1.body.items.map((i: any) => i.name)).toEqual(["Bravado", "Bravo"]); // binary order: upper case first
    expect((await t.request("GET", `${base}?page=2&page_size=2`, { token })).body.items.map((i: any) => i.name)).toEqual(["alpha"]);
    expect((await t.request("GET", `${base}?search=BRAV`, { token })).body.total).toBe(2);
    const all = await t.request("GET", `${base}?include_archived=true`, { token });
    expect(all.body.items.map((i: any) => i.name)).toEqual(["Bravado", "Bravo", "Charlie", "alpha"]);
    expect(all.body.items[2].deleted_at).toMatch(/Z$/);
    for (const q of ["?color=red", "?page_size=201", "?page=0", "?include_archived=maybe"])
      expect((await t.request("GET", `${base}${q}`, { token })).status).toBe(422);
    await expectGuarded(t, P, b, "GET", base, "patients.read");
  });

  test("get: 200; 404 when missing, archived or another org's; guarded", async () => {
    const tag = await createTag({ name: "Get me" });
    const foreign = await createTag({ name: "Foreign" }, B);
    const r = await t.request("GET", `${A}/tag-definitions/${tag.id}`, { token });
    expect(r.status).toBe(200);
    expect(r.body).toEqual(tag);
    for (const id of [MISSING, "nope", foreign.id]) {
      const miss = await t.request("GET", `${A}/tag-definitions/${id}`, { token });
      expect(miss.status).toBe(404);
      expect(miss.body).toEqual({ detail: "Tag definition not found", code: "not_found" });
    }
    await expectGuarded(t, a, b, "GET", `${A}/tag-definitions/${tag.id}`, "patients.read");
    await t.request("POST", `${A}/tag-definitions/${tag.id}/archive`, { token });
    expect((await t.request("GET", `${A}/tag-definitions/${tag.id}`, { token })).status).toBe(404);
  });

  test("patch: 200 and version bump; 409 stale or duplicate name; 422; 404 other org; nothing changes when refused", async () => {
    const tag = await createTag({ name: "Patch me", color: "#000000" });
    await createTag({ name: "Taken" });
    const foreign = await createTag({ name: "Foreign patch" }, B);
    const ok = await t.request("PATCH", `${A}/tag-definitions/${tag.id}`, { token, body: { base_version: 1, color: "#ffffff", description: "desc" } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ name: "Patch me", color: "#ffffff", description: "desc", version: 2 });
    const rename = await t.request("PATCH", `${A}/tag-definitions/${tag.id}`, { token, body: { base_version: 2, name: "patch ME" } });
    expect(rename.status).toBe(200); // its own name in another case is not a duplicate
    const before = await tagRow(a, tag.id);
    const stale = await t.request("PATCH", `${A}/tag-definitions/${tag.id}`, { token, body: { base_version: 1, color: "#111111" } });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("version_conflict");
    const dup = await t.request("PATCH", `${A}/tag-definitions/${tag.id}`, { token, body: { base_version: 3, name: "taken" } });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe("duplicate");
    for (const body of [{ color: "#111111" }, { base_version: 3, color: "red" }, { base_version: 3, deleted_at: null }, { base_version: "3" }]) {
      expect((await t.request("PATCH", `${A}/tag-definitions/${tag.id}`, { token, body })).status).toBe(422);
    }
    expect((await t.request("PATCH", `${A}/tag-definitions/${tag.id}`, { token, ...MALFORMED })).status).toBe(422);
    expect((await t.request("PATCH", `${A}/tag-definitions/${foreign.id}`, { token, body: { base_version: 1, name: "Stolen" } })).status).toBe(404);
    expect((await t.request("PATCH", `${A}/tag-definitions/${MISSING}`, { token, body: { base_version: 1 } })).status).toBe(404);
    await expectGuarded(t, a, b, "PATCH", `${A}/tag-definitions/${tag.id}`, "patients.settings.write", { base_version: 3, color: "#222222" });
    expect(await tagRow(a, tag.id)).toEqual(before);
    expect((await tagRow(b, foreign.id))!.name).toBe("Foreign patch");
    expect((await auditOf(t, a, tag.id)).map((e: any) => e.action)).toEqual(["tag_definition.created", "tag_definition.updated", "tag_definition.updated"]);
  });

  test("archive: 200 with deleted_at; 404 when already archived, missing or another org's; guarded", async () => {
    const tag = await createTag({ name: "Archive me" });
    const foreign = await createTag({ name: "Foreign archive" }, B);
    await expectGuarded(t, a, b, "POST", `${A}/tag-definitions/${tag.id}/archive`, "patients.settings.write");
    expect((await tagRow(a, tag.id))!.deleted_at).toBeNull();
    const r = await t.request("POST", `${A}/tag-definitions/${tag.id}/archive`, { token });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ version: 2, deleted_at: expect.stringMatching(/Z$/) });
    for (const id of [tag.id, MISSING, foreign.id]) expect((await t.request("POST", `${A}/tag-definitions/${id}/archive`, { token })).status).toBe(404);
    expect((await tagRow(b, foreign.id))!.deleted_at).toBeNull();
    const ev = (await eventsA("tag_definition.archived")).find((e) => e.resource_id === tag.id)!;
    expect(ev.data).toEqual({ id: tag.id, changed_fields: ["deleted_at"] });
  });
});

describe("a patient's tags", () => {
  test("add (201), re-add (200, nothing changes), list, the patient list filter, remove (204); audited; events", async () => {
    const p = await newPatient(t, a, { first_name: "Tagged", last_name: "Person" });
    const other = await newPatient(t, a, { first_name: "Untagged", last_name: "Person" });
    const vip = await createTag({ name: "Gold", color: "#ffd700" });
    const late = await createTag({ name: "Always late" });
    const add = await t.request("POST", `${A}/patients/${p.id}/tags`, { token, body: { tag_definition_uuid: vip.id } });
    expect(add.status).toBe(201);
    expect(add.body).toEqual({ tag_definition: { uuid: vip.id, name: "Gold" }, color: "#ffd700", tag_archived: false, tagged_at: expect.stringMatching(/Z$/) });
    const again = await t.request("POST", `${A}/patients/${p.id}/tags`, { token, body: { tag_definition_uuid: vip.id.toUpperCase() } });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(add.body);
    expect(await patientTagRows(a, p.id)).toHaveLength(1);
    expect((await t.request("POST", `${A}/patients/${p.id}/tags`, { token, body: { tag_definition_uuid: late.id } })).status).toBe(201);

    const list = await t.request("GET", `${A}/patients/${p.id}/tags`, { token });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ page: 1, page_size: 50, total: 2 });
    expect(list.body.items.map((i: any) => i.tag_definition.name)).toEqual(["Always late", "Gold"]);
    expect((await t.request("GET", `${A}/patients/${p.id}/tags?page_size=1&page=2`, { token })).body.items.map((i: any) => i.tag_definition.name)).toEqual([
      "Gold",
    ]);

    const filtered = await t.request("GET", `${A}/patients?tag_definition_uuid=${vip.id}`, { token });
    expect(filtered.body.items.map((i: any) => i.id)).toEqual([p.id]);
    expect(filtered.body.total).toBe(1);
    expect((await t.request("GET", `${A}/patients/${other.id}/tags`, { token })).body).toMatchObject({ items: [], total: 0 });

    const del = await t.request("DELETE", `${A}/patients/${p.id}/tags/${vip.id}`, { token });
    expect(del.status).toBe(204);
    expect(del.text).toBe("");
    expect((await t.request("GET", `${A}/patients?tag_definition_uuid=${vip.id}`, { token })).body.total).toBe(0);
    const gone = await t.request("DELETE", `${A}/patients/${p.id}/tags/${vip.id}`, { token });
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ detail: "Patient tag not found", code: "not_found" });

    const audit = (await auditOf(t, a, p.id)).filter((e: any) => e.resource_type === "patient_tag");
    expect(audit.map((e: any) => e.action)).toEqual(["patient_tag.added", "patient_tag.added", "patient_tag.removed"]);
    expect(audit[2].before).toEqual({ patient_id: p.id, tag_definition_id: vip.id });
    const ev = (await eventsA()).filter((e) => e.resource_type === "patient_tag" && e.resource_id === p.id);
    expect(ev.map((e) => e.type)).toEqual(["patient_tag.added", "patient_tag.added", "patient_tag.removed"]);
    expect(ev[0]!.data).toEqual({ patient_id: p.id, tag_definition_id: vip.id });
  });

  test("an archived definition: cannot be added (404); patients keep it (tag_archived) and it can be removed", async () => {
    const p = await newPatient(t, a);
    const tag = await createTag({ name: "Soon archived" });
    await t.request("POST", `${A}/patients/${p.id}/tags`, { token, body: { tag_definition_uuid: tag.id } });
    await t.request("POST", `${A}/tag-definitions/${tag.id}/archive`, { token });
    const q = await newPatient(t, a);
    const refused = await t.request("POST", `${A}/patients/${q.id}/tags`, { token, body: { tag_definition_uuid: tag.id } });
    expect(refused.status).toBe(404);
    expect(refused.body.detail).toBe("Tag definition not found");
    expect(await patientTagRows(a, q.id)).toHaveLength(0);
    const list = await t.request("GET", `${A}/patients/${p.id}/tags`, { token });
    expect(list.body.items).toEqual([expect.objectContaining({ tag_definition: { uuid: tag.id, name: "Soon archived" }, tag_archived: true })]);
    // the patient list keeps filtering by it
    expect((await t.request("GET", `${A}/patients?tag_definition_uuid=${tag.id}`, { token })).body.items.map((i: any) => i.id)).toEqual([p.id]);
    expect((await t.request("DELETE", `${A}/patients/${p.id}/tags/${tag.id}`, { token })).status).toBe(204);
  });

  test("404: missing patient, another org's patient or tag definition; nothing is written in either org", async () => {
    const p = await newPatient(t, a);
    const pB = await newPatient(t, b);
    const tag = await createTag({ name: "Cross" });
    const tagB = await createTag({ name: "Cross B" }, B);
    await t.request("POST", `${B}/patients/${pB.id}/tags`, { token, body: { tag_definition_uuid: tagB.id } });
    const cases: [string, string, unknown?][] = [
      ["POST", `${A}/patients/${MISSING}/tags`, { tag_definition_uuid: tag.id }],
      ["POST", `${A}/patients/${pB.id}/tags`, { tag_definition_uuid: tag.id }],
      ["POST", `${A}/patients/${p.id}/tags`, { tag_definition_uuid: tagB.id }],
      ["POST", `${A}/patients/${p.id}/tags`, { tag_definition_uuid: MISSING }],
      ["GET", `${A}/patients/${pB.id}/tags`],
      ["GET", `${A}/patients/${MISSING}/tags`],
      ["DELETE", `${A}/patients/${pB.id}/tags/${tagB.id}`],
      ["DELETE", `${A}/patients/${p.id}/tags/${tagB.id}`],
      ["DELETE", `${A}/patients/${MISSING}/tags/${tag.id}`],
    ];
    for (const [method, path, body] of cases) expect([method, path, (await t.request(method, path, { token, body })).status]).toEqual([method, path, 404]);
    expect(await patientTagRows(a, p.id)).toHaveLength(0);
    expect(await patientTagRows(b, pB.id)).toHaveLength(1);
    // filtering A's patients by B's tag: 404 (the filter checks the tag exists in this org)
    expect((await t.request("GET", `${A}/patients?tag_definition_uuid=${tagB.id}`, { token })).status).toBe(404);
  });

  test("422: bad or missing uuid, unknown fields, malformed JSON, archived patient (patient_archived); nothing is written", async () => {
    const p = await newPatient(t, a);
    const tag = await createTag({ name: "Valid" });
    for (const body of [{}, { tag_definition_uuid: "nope" }, { tag_definition_uuid: 7 }, { tag_definition_uuid: tag.id, note: "x" }]) {
      expect((await t.request("POST", `${A}/patients/${p.id}/tags`, { token, body })).status).toBe(422);
    }
    expect((await t.request("POST", `${A}/patients/${p.id}/tags`, { token, ...MALFORMED })).status).toBe(422);
    expect((await t.request("GET", `${A}/patients/${p.id}/tags?page_size=500`, { token })).status).toBe(422);
    await t.request("POST", `${A}/patients/${p.id}/tags`, { token, body: { tag_definition_uuid: tag.id } });
    const archived = await newPatient(t, a);
    await t.request("POST", `${A}/patients/${archived.id}/tags`, { token, body: { tag_definition_uuid: tag.id } });
    await t.request("POST", `${A}/patients/${archived.id}/archive`, { token });
    const add = await t.request("POST", `${A}/patients/${archived.id}/tags`, {
      token,
      body: { tag_definition_uuid: (await createTag({ name: "Late add" })).id },
    });
    expect(add.status).toBe(422);
    expect(add.body.code).toBe("patient_archived");
    const del = await t.request("DELETE", `${A}/patients/${archived.id}/tags/${tag.id}`, { token });
    expect(del.status).toBe(422);
    expect(await patientTagRows(a, archived.id)).toHaveLength(1);
    // an archived patient's tags stay readable
    expect((await t.request("GET", `${A}/patients/${archived.id}/tags`, { token })).body.total).toBe(1);
    expect(await patientTagRows(a, p.id)).toHaveLength(1);
  });

  test("guarded: list needs patients.read; add and remove need patients.write", async () => {
    const p = await newPatient(t, a);
    const tag = await createTag({ name: "Guard" });
    await expectGuarded(t, a, b, "GET", `${A}/patients/${p.id}/tags`, "patients.read");
    const writer = await expectGuarded(t, a, b, "POST", `${A}/patients/${p.id}/tags`, "patients.write", { tag_definition_uuid: tag.id });
    expect(await patientTagRows(a, p.id)).toHaveLength(0);
    expect((await t.request("POST", `${A}/patients/${p.id}/tags`, { token: writer, body: { tag_definition_uuid: tag.id } })).status).toBe(201);
    await expectGuarded(t, a, b, "DELETE", `${A}/patients/${p.id}/tags/${tag.id}`, "patients.write");
    expect(
      await (await orgDb(t, a)).read((d) =>
        all(
          d
            .select()
            .from(patientTags)
            .where(and(eq(patientTags.patient_id, p.id), eq(patientTags.tag_definition_id, tag.id))),
        ),
      ),
    ).toHaveLength(1);
  });
});
