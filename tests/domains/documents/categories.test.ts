import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { documentCategories, documents } from "@db/tenant/documents";
import { all, get, run } from "@/platform/db/work";
import type { EventEnvelope } from "@/platform/events/envelope";
import { namesOf } from "@/platform/records/refs";
import { CATEGORY_NAMES, requireCategoryForScope } from "@/domains/documents/categories/service";
import { auditOf, expectGuarded, expectValidationCases, unique, twoOrgApp, type TestApp } from "@tests/helpers";

const MISSING = "01970000-0000-7000-8000-000000000000";

let t: TestApp;
let admin: string;
let reader: string; // documents.read only: refused every write
let manager: string; // documents.manage without documents.read: refused every read
let orgA: string;
let orgB: string;
let A: string; // {P}/documents/categories of org A
let B: string;
let events: EventEnvelope[];

beforeAll(async () => {
  const w = await twoOrgApp({ reader: ["documents.read", "documents.write"], manager: ["documents.manage", "documents.write"] }, { events: true });
  ({ t, admin, orgA, orgB, events } = w);
  ({ reader, manager } = w.tokens);
  A = `${w.pathA}/documents/categories`;
  B = `${w.pathB}/documents/categories`;
});
afterAll(() => t.close());

async function orgDatabase(orgId: string) {
  const org = (await t.rt.access.org(orgId))!;
  return t.rt.orgDbs.get(org.id, org.shard);
}
/** The stored row, straight from the org's database. */
const stored = async (id: string, orgId = orgA) =>
  (await orgDatabase(orgId)).read((d) => get<any>(d.select().from(documentCategories).where(eq(documentCategories.id, id))));
/** Every category row of the org (archived too): a refused write must leave all of them as they were. */
const snapshot = async (orgId = orgA) => (await orgDatabase(orgId)).read((d) => all<any>(d.select().from(documentCategories).orderBy(documentCategories.id)));

async function create(body: Record<string, unknown>, P = A) {
  const r = await t.request("POST", P, { token: admin, body: { scope: "patient", ...body } });
  if (r.status !== 201) throw new Error(`create failed: ${r.status} ${r.text}`);
  return r.body;
}
const read = (id: string, P = A, token = admin) => t.request("GET", `${P}/${id}`, { token });
const patch = (id: string, body: Record<string, unknown>, P = A) => t.request("PATCH", `${P}/${id}`, { token: admin, body });
const archive = (id: string, v = 1, P = A) => t.request("POST", `${P}/${id}/archive?base_version=${v}`, { token: admin });
async function tree(scope: string, P = A, token = admin) {
  const r = await t.request("GET", `${P}?scope=${scope}`, { token });
  expect(r.status).toBe(200);
  return r.body.items as any[];
}

describe("GET /documents/categories?scope=", () => {
  test("the scope's live categories as a flat tree: by path (name by name, any case, descendants right after their parent), then sort_order, then id", async () => {
    const org = (await t.createOrg()).id;
    const P = `/api/v1/${org}/documents/categories`;
    const mk = (name: string, sort_order: number, parent?: string, scope = "patient") =>
      create({ name, sort_order, scope, ...(parent ? { parent_uuid: parent } : {}) }, P);
    // created out of order; sort_order ties and sort_orders against the name order
    const clinical = await mk("Clinical", 5);
    const notes = await mk("Clinical Notes", 0); // " " < "/" in plain text order: must still come after Clinical's subtree
    const billing = await mk("billing", 0);
    const admin_ = await mk("Administrative", 5);
    const radio = await mk("Radiographs", 1, clinical.id);
    const photos = await mk("Photos", 1, clinical.id);
    const consents = await mk("Consents", 2, clinical.id);
    const pano = await mk("Panoramic", 0, radio.id);
    const bitewing = await mk("Bitewing", 0, radio.id);
    const gone = await mk("Archived", 0, clinical.id);
    expect((await archive(gone.id, 1, P)).status).toBe(200);
    const licenses = await mk("Licenses", 0, undefined, "provider");
    const provClinical = await mk("Clinical", 0, undefined, "provider");
    const cpr = await mk("CPR", 0, licenses.id, "provider");

    const items = await tree("patient", P);
    expect(items.map((c) => [c.path, c.depth, c.parent_uuid, c.sort_order])).toEqual([
      ["Administrative", 0, null, 5],
      ["billing", 0, null, 0],
      ["Clinical", 0, null, 5],
      ["Clinical/Consents", 1, clinical.id, 2],
      ["Clinical/Photos", 1, clinical.id, 1],
      ["Clinical/Radiographs", 1, clinical.id, 1],
      ["Clinical/Radiographs/Bitewing", 2, radio.id, 0],
      ["Clinical/Radiographs/Panoramic", 2, radio.id, 0],
      ["Clinical Notes", 0, null, 0],
    ]);
    expect(items.map((c) => c.id)).toEqual([admin_.id, billing.id, clinical.id, consents.id, photos.id, radio.id, bitewing.id, pano.id, notes.id]);
    expect(items[7]).toEqual(pano);
    const prov = await tree("provider", P);
    expect(prov.map((c) => [c.id, c.path, c.depth])).toEqual([
      [provClinical.id, "Clinical", 0],
      [licenses.id, "Licenses", 0],
      [cpr.id, "Licenses/CPR", 1],
    ]);
    expect(await tree("location", P)).toEqual([]);
    expect(await tree("organization", P)).toEqual([]);
  });

  test("another org's categories never show", async () => {
    const foreign = await create({ name: unique("Foreign"), scope: "location" }, B);
    expect((await tree("location")).map((c) => c.id)).not.toContain(foreign.id);
    expect((await tree("location", B)).map((c) => c.id)).toContain(foreign.id);
  });

  test("422 when scope is missing or not a scope, and for unknown query parameters", async () => {
    for (const [qs, loc, type] of [
      ["", ["query", "scope"], "missing"],
      ["scope=document", ["query", "scope"], "enum"],
      ["scope=Patient", ["query", "scope"], "enum"],
      ["scope=patient&page=1", ["query", "page"], "extra_forbidden"],
    ] as const) {
      const r = await t.request("GET", `${A}?${qs}`, { token: admin });
      expect([qs, r.status]).toEqual([qs, 422]);
      expect(r.body.detail[0]).toMatchObject({ loc, type });
    }
  });

  test("401, 403 without documents.read, 404 for a member of another org", async () => {
    const holder = await expectGuarded(t, orgA, orgB, "GET", `${A}?scope=patient`, "documents.read");
    expect((await t.request("GET", `${A}?scope=patient`, { token: holder })).status).toBe(200);
    expect((await t.request("GET", `${A}?scope=patient`, { token: manager })).status).toBe(403);
    expect((await t.request("GET", `${B}?scope=patient`, { token: reader })).status).toBe(404);
  });
});

describe("GET /documents/categories/{id}", () => {
  test("200 with ETag for documents.read; 404 when missing, malformed, archived or another org's; 401, 403", async () => {
    const c = await create({ name: unique("Get me"), description: "For reading" });
    const r = await read(c.id, A, reader);
    expect([r.status, r.body, r.headers.get("etag")]).toEqual([200, c, '"1"']);
    expect((await read(c.id.toUpperCase())).body.id).toBe(c.id);
    const gone = await create({ name: unique("Gone") });
    await archive(gone.id);
    const foreign = await create({ name: unique("Foreign") }, B);
    for (const id of [MISSING, "not-a-uuid", gone.id, foreign.id]) {
      const miss = await read(id);
      expect([id, miss.status, miss.body]).toEqual([id, 404, { detail: "Document category not found", code: "not_found" }]);
    }
    expect((await t.request("GET", `${A}/${c.id}`)).status).toBe(401);
    expect((await read(c.id, A, manager)).status).toBe(403);
    expect((await read(c.id, B, reader)).status).toBe(404);
  });
});

describe("POST /documents/categories", () => {
  test("201 with every field (name trimmed, parent id in any case); readable; audited; published with ids and the scope only", async () => {
    const parent = await create({ name: unique("Clinical") });
    const before = events.length;
    const body = { name: "  Radiographs ", scope: "patient", parent_uuid: parent.id.toUpperCase(), sort_order: 3, description: "X-rays of every kind" };
    const r = await t.request("POST", A, { token: admin, body });
    expect(r.status).toBe(201);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toEqual({
      id: expect.any(String),
      scope: "patient",
      parent_uuid: parent.id,
      name: "Radiographs",
      path: `${parent.name}/Radiographs`,
      depth: 1,
      sort_order: 3,
      description: "X-rays of every kind",
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
      deleted_at: null,
    });
    expect((await read(r.body.id)).body).toEqual(r.body);
    expect((await auditOf(t, orgA, r.body.id)).map((a) => a.action)).toEqual(["document_category.created"]);
    const mine = events.slice(before).filter((e) => e.resource_id === r.body.id);
    expect(mine.map((e) => [e.type, e.resource_type, e.data])).toEqual([
      ["document_category.created", "document_category", { id: r.body.id, scope: "patient", parent_uuid: parent.id }],
    ]);
  });

  test("only name and scope are required: a root with sort_order 0 and no description", async () => {
    const r = await create({ name: unique("Root"), scope: "organization" });
    expect(r).toMatchObject({ scope: "organization", parent_uuid: null, path: r.name, depth: 0, sort_order: 0, description: null });
  });

  test("422 for missing, blank, long, wrong-typed, '/' in names, unknown and read-only fields, and a parent that is not a live category of the scope; nothing is written", async () => {
    const parent = await create({ name: unique("Parent") });
    const otherScope = await create({ name: unique("Provider parent"), scope: "provider" });
    const gone = await create({ name: unique("Gone parent") });
    await archive(gone.id);
    const foreign = await create({ name: unique("Foreign parent") }, B);
    const before = await snapshot();
    await expectValidationCases(t, "POST", A, admin, [
      [{ scope: "patient" }, ["body", "name"], "missing"],
      [{ name: "Consents" }, ["body", "scope"], "missing"],
      [{ name: "Consents", scope: "document" }, ["body", "scope"], "enum"],
      [{ name: "Consents", scope: null }, ["body", "scope"], "enum"],
      [{ name: "   ", scope: "patient" }, ["body", "name"], "out_of_range"],
      [{ name: "x".repeat(101), scope: "patient" }, ["body", "name"], "out_of_range"],
      [{ name: 5, scope: "patient" }, ["body", "name"], "type_error"],
      [{ name: "X-rays/Pano", scope: "patient" }, ["body", "name"], "value_error"],
      [{ name: "/", scope: "patient" }, ["body", "name"], "value_error"],
      [{ name: "Tab\there", scope: "patient" }, ["body", "name"], "value_error"],
      [{ name: "Consents", scope: "patient", sort_order: "1" }, ["body", "sort_order"], "type_error"],
      [{ name: "Consents", scope: "patient", sort_order: 1.5 }, ["body", "sort_order"], "type_error"],
      [{ name: "Consents", scope: "patient", sort_order: -1 }, ["body", "sort_order"], "out_of_range"],
      [{ name: "Consents", scope: "patient", description: 7 }, ["body", "description"], "type_error"],
      [{ name: "Consents", scope: "patient", parent_uuid: "nope" }, ["body", "parent_uuid"], "format"],
      [{ name: "Consents", scope: "patient", parent_uuid: 12 }, ["body", "parent_uuid"], "type_error"],
      [{ name: "Consents", scope: "patient", color: "red" }, ["body", "color"], "extra_forbidden"],
      [{ name: "Consents", scope: "patient", parent_id: parent.id }, ["body", "parent_id"], "extra_forbidden"],
      [{ name: "Consents", scope: "patient", path: "Consents" }, ["body", "path"], "read_only"],
      [{ name: "Consents", scope: "patient", depth: 0 }, ["body", "depth"], "read_only"],
      [{ name: "Consents", scope: "patient", id: MISSING }, ["body", "id"], "read_only"],
      [{ name: "Consents", scope: "patient", version: 1 }, ["body", "version"], "read_only"],
      // the parent: another scope's, archived, missing, another org's
      [{ name: "Consents", scope: "patient", parent_uuid: otherScope.id }, ["body", "parent_uuid"], "value_error"],
      [{ name: "Consents", scope: "patient", parent_uuid: gone.id }, ["body", "parent_uuid"], "value_error"],
      [{ name: "Consents", scope: "patient", parent_uuid: MISSING }, ["body", "parent_uuid"], "value_error"],
      [{ name: "Consents", scope: "patient", parent_uuid: foreign.id }, ["body", "parent_uuid"], "value_error"],
    ]);
    const bad = await t.request("POST", A, { token: admin, rawBody: '{"name": ', headers: { "content-type": "application/json" } });
    expect([bad.status, bad.body.detail[0].type]).toEqual([422, "json_invalid"]);
    expect(await snapshot()).toEqual(before);
  });

  test("409 duplicate for a live sibling's name in any case; the same name elsewhere is fine; an archived sibling's name is free again", async () => {
    const parent = await create({ name: unique("Dup parent") });
    const other = await create({ name: unique("Other parent") });
    const first = await create({ name: "Consents", parent_uuid: parent.id });
    const before = await snapshot();
    for (const name of ["Consents", "CONSENTS", " consents "]) {
      const r = await t.request("POST", A, { token: admin, body: { name, scope: "patient", parent_uuid: parent.id } });
      expect([name, r.status, r.body.code]).toEqual([name, 409, "duplicate"]);
    }
    const rootName = unique("Root dup");
    await create({ name: rootName });
    const rootDup = await t.request("POST", A, { token: admin, body: { name: rootName.toUpperCase(), scope: "patient" } });
    expect([rootDup.status, rootDup.body.code]).toEqual([409, "duplicate"]);
    expect((await snapshot()).length).toBe(before.length + 1);
    expect((await create({ name: "Consents", parent_uuid: other.id })).path).toBe(`${other.name}/Consents`);
    expect((await create({ name: "Consents", scope: "provider" })).path).toBe("Consents");
    await archive(first.id);
    expect((await create({ name: "consents", parent_uuid: parent.id })).path).toBe(`${parent.name}/consents`);
  });

  test("401, 403 without documents.manage, 404 for a member of another org; nothing is written", async () => {
    const before = await snapshot();
    const body = { name: unique("Nope"), scope: "patient" };
    const holder = await expectGuarded(t, orgA, orgB, "POST", A, "documents.manage", body);
    expect((await t.request("POST", A, { token: reader, body })).status).toBe(403);
    expect((await t.request("POST", B, { token: manager, body })).status).toBe(404);
    expect(await snapshot()).toEqual(before);
    expect((await t.request("POST", A, { token: holder, body })).status).toBe(201);
  });
});

describe("PATCH /documents/categories/{id}", () => {
  test("name, sort_order and description change; version bumps; audited and published with the changed field names", async () => {
    const c = await create({ name: unique("Patch me"), sort_order: 1, description: "old" });
    const before = events.length;
    const r = await patch(c.id, { base_version: 1, sort_order: 9, description: null });
    expect([r.status, r.headers.get("etag")]).toEqual([200, '"2"']);
    expect(r.body).toEqual({ ...c, sort_order: 9, description: null, version: 2, updated_at: expect.any(String) });
    expect((await read(c.id)).body).toEqual(r.body);
    expect((await auditOf(t, orgA, c.id)).map((a) => a.action)).toEqual(["document_category.created", "document_category.updated"]);
    const mine = events.slice(before).filter((e) => e.resource_id === c.id);
    expect(mine.map((e) => [e.type, e.data])).toEqual([["document_category.updated", { id: c.id, changed_fields: ["sort_order", "description"] }]]);
  });

  test("a rename rewrites the path of the category and of every descendant (archived ones too) in the same write", async () => {
    const top = await create({ name: unique("Top") });
    const mid = await create({ name: "Mid", parent_uuid: top.id });
    const leaf = await create({ name: "Leaf", parent_uuid: mid.id });
    const dead = await create({ name: "Dead", parent_uuid: mid.id });
    await archive(dead.id);
    const before = events.length;
    const r = await patch(top.id, { base_version: 1, name: "Renamed top" });
    expect(r.status).toBe(200);
    expect([r.body.name, r.body.path, r.body.depth, r.body.version]).toEqual(["Renamed top", "Renamed top", 0, 2]);
    expect((await read(mid.id)).body).toMatchObject({ path: "Renamed top/Mid", depth: 1, version: 2 });
    expect((await read(leaf.id)).body).toMatchObject({ path: "Renamed top/Mid/Leaf", depth: 2, version: 2 });
    expect(await stored(dead.id)).toMatchObject({ path: "Renamed top/Mid/Dead", version: 3 });
    const mine = events.slice(before).filter((e) => e.type.startsWith("document_category."));
    expect(mine.map((e) => [e.type, e.data])).toEqual([
      ["document_category.updated", { id: top.id, changed_fields: ["name", "path"] }],
      ["document_category.updated", { id: mid.id, changed_fields: ["path"], ancestor_uuid: top.id }],
      ["document_category.updated", { id: leaf.id, changed_fields: ["path"], ancestor_uuid: top.id }],
      ["document_category.updated", { id: dead.id, changed_fields: ["path"], ancestor_uuid: top.id }],
    ]);
    // a change of case only is a rename too, and not a clash with itself
    const again = await patch(top.id, { base_version: 2, name: "RENAMED TOP" });
    expect([again.status, again.body.path]).toEqual([200, "RENAMED TOP"]);
    expect((await read(leaf.id)).body.path).toBe("RENAMED TOP/Mid/Leaf");
  });

  test("parent_uuid moves a category with its descendants (paths and depths rewritten); null moves it to the root", async () => {
    const from = await create({ name: unique("From") });
    const to = await create({ name: unique("To") });
    const toChild = await create({ name: "Deeper", parent_uuid: to.id });
    const moved = await create({ name: "Moved", parent_uuid: from.id });
    const kid = await create({ name: "Kid", parent_uuid: moved.id });
    const grandkid = await create({ name: "Grandkid", parent_uuid: kid.id });

    const r = await patch(moved.id, { base_version: 1, parent_uuid: toChild.id.toUpperCase(), sort_order: 4 });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ parent_uuid: toChild.id, path: `${to.name}/Deeper/Moved`, depth: 2, sort_order: 4, version: 2 });
    expect((await read(kid.id)).body).toMatchObject({ parent_uuid: moved.id, path: `${to.name}/Deeper/Moved/Kid`, depth: 3 });
    expect((await read(grandkid.id)).body).toMatchObject({ path: `${to.name}/Deeper/Moved/Kid/Grandkid`, depth: 4 });
    const paths = (await tree("patient")).map((c) => c.path);
    expect(paths.slice(paths.indexOf(to.name), paths.indexOf(to.name) + 5)).toEqual([
      to.name,
      `${to.name}/Deeper`,
      `${to.name}/Deeper/Moved`,
      `${to.name}/Deeper/Moved/Kid`,
      `${to.name}/Deeper/Moved/Kid/Grandkid`,
    ]);
    expect(paths).not.toContain(`${from.name}/Moved`);

    const root = await patch(kid.id, { base_version: 2, parent_uuid: null });
    expect(root.body).toMatchObject({ parent_uuid: null, path: "Kid", depth: 0, version: 3 });
    expect((await read(grandkid.id)).body).toMatchObject({ path: "Kid/Grandkid", depth: 1, version: 3 });
    expect((await read(moved.id)).body.version).toBe(2);
  });

  test("422 moving under itself, its own descendant, another scope's or an archived category; 409 for a clash at the new place or a stale version; nothing changes", async () => {
    const top = await create({ name: unique("Cycle top") });
    const child = await create({ name: "Child", parent_uuid: top.id });
    const grandchild = await create({ name: "Grandchild", parent_uuid: child.id });
    const elsewhere = await create({ name: unique("Elsewhere") });
    await create({ name: "child", parent_uuid: elsewhere.id });
    const otherScope = await create({ name: unique("Org scope"), scope: "organization" });
    const gone = await create({ name: unique("Gone") });
    await archive(gone.id);
    const before = await snapshot();
    for (const [id, parent] of [
      [top.id, top.id],
      [top.id, child.id],
      [top.id, grandchild.id],
      [child.id, grandchild.id],
      [child.id, otherScope.id],
      [child.id, gone.id],
      [child.id, MISSING],
    ]) {
      const r = await patch(id!, { base_version: 1, parent_uuid: parent });
      expect([id, parent, r.status, r.body.detail?.[0]?.loc]).toEqual([id, parent, 422, ["body", "parent_uuid"]]);
    }
    const clash = await patch(child.id, { base_version: 1, parent_uuid: elsewhere.id });
    expect([clash.status, clash.body.code]).toEqual([409, "duplicate"]);
    const sibling = await create({ name: "Sibling", parent_uuid: top.id });
    const rename = await patch(sibling.id, { base_version: 1, name: "CHILD" });
    expect([rename.status, rename.body.code]).toEqual([409, "duplicate"]);
    const stale = await patch(child.id, { base_version: 2, name: "Fresh" });
    expect([stale.status, stale.body]).toEqual([409, { detail: "The record is at version 1; reload and retry", code: "version_conflict" }]);
    expect((await snapshot()).filter((r) => r.id !== sibling.id)).toEqual(before);
  });

  test("422 for bad input, scope and derived fields; nothing changes", async () => {
    const c = await create({ name: unique("Strict") });
    const before = await stored(c.id);
    await expectValidationCases(t, "PATCH", `${A}/${c.id}`, admin, [
      [{ name: "X" }, ["body", "base_version"], "missing"],
      [{ base_version: 0, name: "X" }, ["body", "base_version"], "out_of_range"],
      [{ base_version: "1", name: "X" }, ["body", "base_version"], "type_error"],
      [{ base_version: 1, name: null }, ["body", "name"], "type_error"],
      [{ base_version: 1, name: "" }, ["body", "name"], "out_of_range"],
      [{ base_version: 1, name: "a/b" }, ["body", "name"], "value_error"],
      [{ base_version: 1, sort_order: null }, ["body", "sort_order"], "type_error"],
      [{ base_version: 1, parent_uuid: "x" }, ["body", "parent_uuid"], "format"],
      [{ base_version: 1, scope: "provider" }, ["body", "scope"], "read_only"],
      [{ base_version: 1, path: "Elsewhere" }, ["body", "path"], "read_only"],
      [{ base_version: 1, depth: 3 }, ["body", "depth"], "read_only"],
      [{ base_version: 1, deleted_at: null }, ["body", "deleted_at"], "read_only"],
      [{ base_version: 1, colour: "red" }, ["body", "colour"], "extra_forbidden"],
    ]);
    expect(await stored(c.id)).toEqual(before);
  });

  test("404 for a missing, archived or another org's category; 401, 403 without documents.manage, 404 non-member; nothing changes", async () => {
    const foreign = await create({ name: unique("Foreign") }, B);
    const gone = await create({ name: unique("Gone") });
    await archive(gone.id);
    for (const [id, v] of [
      [MISSING, 1],
      [gone.id, 2],
      [foreign.id, 1],
    ] as const) {
      const r = await patch(id, { base_version: v, name: "Z" });
      expect([id, r.status, r.body.code]).toEqual([id, 404, "not_found"]);
    }
    expect(await stored(foreign.id, orgB)).toMatchObject({ version: 1, name: foreign.name });
    const c = await create({ name: unique("Guarded") });
    const before = await stored(c.id);
    const body = { base_version: 1, name: "Y" };
    await expectGuarded(t, orgA, orgB, "PATCH", `${A}/${c.id}`, "documents.manage", body);
    expect((await t.request("PATCH", `${A}/${c.id}`, { token: reader, body })).status).toBe(403);
    expect((await t.request("PATCH", `${B}/${c.id}`, { token: manager, body })).status).toBe(404);
    expect(await stored(c.id)).toEqual(before);
  });
});

describe("POST /documents/categories/{id}/archive", () => {
  test("answers the archived category; it is 404 and gone from the tree afterwards; audited and published", async () => {
    const c = await create({ name: unique("Archive me"), scope: "location" });
    const before = events.length;
    const r = await archive(c.id);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...c, version: 2, updated_at: expect.any(String), deleted_at: expect.stringMatching(/Z$/) });
    expect((await read(c.id)).status).toBe(404);
    expect((await tree("location")).map((x) => x.id)).not.toContain(c.id);
    expect(await stored(c.id)).toMatchObject({ version: 2, deleted_at: r.body.deleted_at });
    expect((await auditOf(t, orgA, c.id)).map((a) => a.action)).toEqual(["document_category.created", "document_category.archived"]);
    const mine = events.slice(before).filter((e) => e.resource_id === c.id);
    expect(mine.map((e) => [e.type, e.data])).toEqual([["document_category.archived", { id: c.id, changed_fields: ["deleted_at"] }]]);
  });

  test("422 category_has_children while a live child remains (archived children do not count); nothing changes", async () => {
    const parent = await create({ name: unique("Has kids") });
    const kid = await create({ name: "Kid", parent_uuid: parent.id });
    const before = await snapshot();
    const r = await archive(parent.id);
    expect([r.status, r.body.code, r.body.detail[0].loc]).toEqual([422, "category_has_children", ["path", "category_uuid"]]);
    expect(await snapshot()).toEqual(before);
    expect((await archive(kid.id)).status).toBe(200);
    expect((await archive(parent.id)).status).toBe(200);
  });

  test("documents filed under an archived category keep their category_id; references still name it", async () => {
    const c = await create({ name: unique("Filed") });
    const docId = Bun.randomUUIDv7();
    const now = new Date().toISOString();
    const db = await orgDatabase(orgA);
    await db.write((tx) =>
      run(
        tx.insert(documents).values({
          id: docId,
          title: "Panoramic 2024",
          file_name: "pano.jpg",
          file_size: 1234,
          mime_type: "image/jpeg",
          document_type: "panoramic",
          category_id: c.id,
          status: "active",
          created_at: now,
          updated_at: now,
          version: 1,
        }),
      ),
    );
    expect((await archive(c.id)).status).toBe(200);
    const doc = await db.read((d) => get<any>(d.select().from(documents).where(eq(documents.id, docId))));
    expect(doc.category_id).toBe(c.id);
    expect(await db.read((d) => namesOf(d, CATEGORY_NAMES, [c.id]))).toEqual(new Map([[c.id, c.name]]));
  });

  test("409 stale, 422 without base_version, 404 when archived already, missing or another org's; 401, 403; nothing changes", async () => {
    const c = await create({ name: unique("Keep me") });
    const before = await stored(c.id);
    const stale = await archive(c.id, 2);
    expect([stale.status, stale.body.code]).toEqual([409, "version_conflict"]);
    const noVersion = await t.request("POST", `${A}/${c.id}/archive`, { token: admin });
    expect([noVersion.status, noVersion.body.detail[0].loc, noVersion.body.detail[0].type]).toEqual([422, ["query", "base_version"], "missing"]);
    const gone = await create({ name: unique("Gone") });
    await archive(gone.id);
    const goneRow = await stored(gone.id);
    expect((await archive(gone.id, 2)).status).toBe(404);
    expect(await stored(gone.id)).toEqual(goneRow);
    const foreign = await create({ name: unique("Foreign") }, B);
    for (const id of [MISSING, foreign.id]) expect((await archive(id)).status).toBe(404);
    expect((await stored(foreign.id, orgB)).deleted_at).toBeNull();
    await expectGuarded(t, orgA, orgB, "POST", `${A}/${c.id}/archive?base_version=1`, "documents.manage");
    expect((await t.request("POST", `${A}/${c.id}/archive?base_version=1`, { token: reader })).status).toBe(403);
    expect(await stored(c.id)).toEqual(before);
  });
});

describe("requireCategoryForScope (for documents)", () => {
  test("the live row, of the scope when one is given; undefined when missing, archived, of another scope or malformed", async () => {
    const c = await create({ name: unique("Lookup"), scope: "provider" });
    const gone = await create({ name: unique("Gone lookup"), scope: "provider" });
    await archive(gone.id);
    const db = await orgDatabase(orgA);
    const find = (id: string, scope?: "location" | "organization" | "patient" | "provider") => db.read((d) => requireCategoryForScope(d, id, scope));
    expect((await find(c.id))?.id).toBe(c.id);
    expect((await find(c.id.toUpperCase(), "provider"))?.id).toBe(c.id);
    expect(await find(c.id, "patient")).toBeUndefined();
    expect(await find(gone.id)).toBeUndefined();
    expect(await find(MISSING)).toBeUndefined();
    expect(await find("not-a-uuid")).toBeUndefined();
  });
});
