import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf } from "@tests/helpers";
import { KINDS, medicalApp, READ, WRITE, type Kind } from "./fixtures";

// What every route of the four record kinds shares: authentication, permission,
// tenant isolation, parent checks, versions, body validation, audit and events.

let m: Awaited<ReturnType<typeof medicalApp>>;
let readerOnly: string;
let writerOnly: string;
let patientsOnly: string;
let outsider: string;

beforeAll(async () => {
  const app = await medicalApp({
    readerOnly: [READ],
    writerOnly: [WRITE],
    patientsOnly: ["patients.read", "patients.write"],
    outsider: { org: "B", keys: [READ, WRITE, "patients.read", "patients.write"] },
  });
  m = app;
  ({ readerOnly, writerOnly, patientsOnly, outsider } = app.tokens);
});
afterAll(() => m.t.close());

/** Every route of a kind: [method, path, body]. */
function routes(kind: Kind, patientId: string, id: string, org?: string) {
  const archive = `${m.path(patientId, kind, id, org)}/archive`;
  return {
    reads: [
      ["GET", m.path(patientId, kind, undefined, org)],
      ["GET", m.path(patientId, kind, id, org)],
    ] as [string, string, unknown?][],
    writes: [
      ["POST", m.path(patientId, kind, undefined, org), KINDS[kind].create],
      ["PATCH", m.path(patientId, kind, id, org), { base_version: 1, ...KINDS[kind].patch }],
      ["POST", archive],
    ] as [string, string, unknown?][],
  };
}

describe.each(Object.keys(KINDS) as Kind[])("%s", (kind) => {
  test("401 without a token on every route (WWW-Authenticate: Bearer); nothing written", async () => {
    const p = await m.createPatient();
    const rec = await m.createRecord(p.id, kind);
    const { reads, writes } = routes(kind, p.id, rec.id);
    for (const [method, path, body] of [...reads, ...writes]) {
      const r = await m.t.request(method, path, { body });
      expect([method, path, r.status]).toEqual([method, path, 401]);
      expect(r.headers.get("www-authenticate")).toBe("Bearer");
    }
    expect((await m.rowOf(kind, rec.id))!.version).toBe(1);
  });

  test("403 without the permission key: reads need patients.medical.read, writes patients.medical.write", async () => {
    const p = await m.createPatient();
    const rec = await m.createRecord(p.id, kind);
    const { reads, writes } = routes(kind, p.id, rec.id);
    for (const [method, path, body] of [...reads, ...writes]) {
      const r = await m.t.request(method, path, { token: patientsOnly, body });
      expect([method, path, r.status, r.body.code]).toEqual([method, path, 403, "forbidden"]);
    }
    for (const [method, path, body] of writes) expect((await m.t.request(method, path, { token: readerOnly, body })).status).toBe(403);
    for (const [method, path] of reads) {
      expect((await m.t.request(method, path, { token: writerOnly })).status).toBe(403);
      expect((await m.t.request(method, path, { token: readerOnly })).status).toBe(200);
    }
    expect((await m.rowOf(kind, rec.id))!.version).toBe(1);
    const list = await m.t.request("GET", m.path(p.id, kind), { token: m.token });
    expect(list.body.total).toBe(1);
  });

  test("404 for a caller who is not a member of the org", async () => {
    const p = await m.createPatient();
    const rec = await m.createRecord(p.id, kind);
    const { reads, writes } = routes(kind, p.id, rec.id);
    for (const [method, path, body] of [...reads, ...writes]) {
      const r = await m.t.request(method, path, { token: outsider, body });
      expect([method, path, r.status]).toEqual([method, path, 404]);
    }
    expect((await m.rowOf(kind, rec.id))!.version).toBe(1);
  });

  test("another org's patient and records are unreachable through this org's path (404); they stay unchanged", async () => {
    const foreignPatient = await m.createPatient({}, m.otherOrg);
    const foreign = await m.createRecord(foreignPatient.id, kind, {}, m.otherOrg);
    const own = await m.createPatient();
    // the other org's patient through this org's path
    const { reads, writes } = routes(kind, foreignPatient.id, foreign.id);
    for (const [method, path, body] of [...reads, ...writes]) {
      const r = await m.t.request(method, path, { token: m.token, body });
      expect([method, path, r.status, r.body.code]).toEqual([method, path, 404, "not_found"]);
    }
    // this org's patient with the other org's record id
    const mixed = routes(kind, own.id, foreign.id);
    for (const [method, path, body] of [mixed.reads[1]!, ...mixed.writes.slice(1)]) {
      const r = await m.t.request(method, path, { token: m.token, body });
      expect([method, path, r.status]).toEqual([method, path, 404]);
    }
    expect((await m.rowOf(kind, foreign.id, m.otherOrg))!.version).toBe(1);
    expect((await m.t.request("GET", m.path(foreignPatient.id, kind, undefined, m.otherOrg), { token: m.token })).body.total).toBe(1);
    expect((await m.t.request("GET", m.path(own.id, kind), { token: m.token })).body.total).toBe(0);
  });

  test("404 for a missing patient, a missing record, and another patient's record; nothing changes", async () => {
    const p = await m.createPatient();
    const other = await m.createPatient({ first_name: "Other" });
    const rec = await m.createRecord(other.id, kind);
    const missing = "0190a1b2-0000-7000-8000-000000000000";
    const { reads, writes } = routes(kind, missing, rec.id);
    for (const [method, path, body] of [...reads, ...writes]) {
      const r = await m.t.request(method, path, { token: m.token, body });
      expect([method, path, r.status, r.body.detail]).toEqual([method, path, 404, "Patient not found"]);
    }
    for (const id of [missing, "not-a-uuid", rec.id]) {
      const own = routes(kind, p.id, id);
      for (const [method, path, body] of [own.reads[1]!, ...own.writes.slice(1)]) {
        const r = await m.t.request(method, path, { token: m.token, body });
        expect([method, path, r.status, r.body.code]).toEqual([method, path, 404, "not_found"]);
      }
    }
    expect((await m.rowOf(kind, rec.id))!.version).toBe(1);
    expect((await m.t.request("GET", m.path(p.id, kind), { token: m.token })).body.total).toBe(0);
  });

  test("409 version_conflict on a stale base_version; nothing changes", async () => {
    const p = await m.createPatient();
    const rec = await m.createRecord(p.id, kind);
    expect((await m.t.request("PATCH", m.path(p.id, kind, rec.id), { token: m.token, body: { base_version: 1, ...KINDS[kind].patch } })).status).toBe(200);
    const stale = await m.t.request("PATCH", m.path(p.id, kind, rec.id), { token: m.token, body: { base_version: 1, ...KINDS[kind].create } });
    expect(stale.status).toBe(409);
    expect(stale.body).toEqual({ detail: "The record is at version 2; reload and retry", code: "version_conflict" });
    const ahead = await m.t.request("PATCH", m.path(p.id, kind, rec.id), { token: m.token, body: { base_version: 3, ...KINDS[kind].create } });
    expect(ahead.status).toBe(409);
    const row = (await m.rowOf(kind, rec.id))!;
    expect(row.version).toBe(2);
    // the stale and the ahead bodies were refused: the row still holds the first patch
    expect(row).toMatchObject(KINDS[kind].patch);
  });

  test("422: malformed JSON, unknown and read-only fields, missing or bad base_version; nothing written", async () => {
    const p = await m.createPatient();
    const rec = await m.createRecord(p.id, kind);
    const json = { "content-type": "application/json" };
    for (const [method, path] of [
      ["POST", m.path(p.id, kind)],
      ["PATCH", m.path(p.id, kind, rec.id)],
    ] as const) {
      const bad = await m.t.request(method, path, { token: m.token, rawBody: '{"title": ', headers: json });
      expect(bad.status).toBe(422);
      expect(bad.body.detail).toEqual([{ loc: ["body"], msg: "Malformed JSON body", type: "json_invalid" }]);
      const patchBase = method === "PATCH" ? { base_version: 1 } : {};
      const extras: [Record<string, unknown>, string][] = [
        [{ nickname: "x" }, "extra_forbidden"],
        [{ patient_id: p.id }, "extra_forbidden"],
        [{ id: rec.id }, "read_only"],
        [{ version: 5 }, "read_only"],
        [{ patient: { uuid: p.id } }, "read_only"],
        [{ created_at: "2020-01-01T00:00:00Z" }, "read_only"],
        [{ deleted_at: null }, "read_only"],
      ];
      for (const [extra, type] of extras) {
        const r = await m.t.request(method, path, { token: m.token, body: { ...KINDS[kind].create, ...patchBase, ...extra } });
        expect([method, extra, r.status]).toEqual([method, extra, 422]);
        expect(r.body.detail[0]).toMatchObject({ loc: ["body", Object.keys(extra)[0]], type });
      }
    }
    for (const base_version of [undefined, 0, "1", 1.5]) {
      const r = await m.t.request("PATCH", m.path(p.id, kind, rec.id), { token: m.token, body: { ...KINDS[kind].patch, base_version } });
      expect(r.status).toBe(422);
      expect(r.body.detail[0].loc).toEqual(["body", "base_version"]);
    }
    const unsupported = await m.t.request("POST", m.path(p.id, kind), {
      token: m.token,
      rawBody: "a=b",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(unsupported.status).toBe(415);
    expect((await m.rowOf(kind, rec.id))!.version).toBe(1);
    expect((await m.t.request("GET", m.path(p.id, kind), { token: m.token })).body.total).toBe(1);
  });

  test("422 for unknown query parameters and bad paging", async () => {
    const p = await m.createPatient();
    for (const q of ["patient_id=x", "page=0", "page_size=201", "page=abc"]) {
      const r = await m.t.request("GET", `${m.path(p.id, kind)}?${q}`, { token: m.token });
      expect([q, r.status]).toEqual([q, 422]);
      expect(r.body.detail[0].loc[0]).toBe("query");
    }
  });

  test("an archived patient's records stay readable; writes are 422 patient_archived", async () => {
    const p = await m.createPatient();
    const rec = await m.createRecord(p.id, kind);
    expect((await m.t.request("POST", `${m.base()}/${p.id}/archive`, { token: m.token })).status).toBe(200);
    expect((await m.t.request("GET", m.path(p.id, kind, rec.id), { token: m.token })).body.id).toBe(rec.id);
    expect((await m.t.request("GET", m.path(p.id, kind), { token: m.token })).body.total).toBe(1);
    for (const [method, path, body] of routes(kind, p.id, rec.id).writes) {
      const r = await m.t.request(method, path, { token: m.token, body });
      expect([method, r.status, r.body.code]).toEqual([method, 422, "patient_archived"]);
      expect(r.body.detail[0].loc).toEqual(["path", "patient_uuid"]);
    }
    expect((await m.rowOf(kind, rec.id))!.version).toBe(1);
    expect((await m.t.request("GET", m.path(p.id, kind), { token: m.token })).body.total).toBe(1);
  });

  test("create, get, list, patch, archive; ETags; audit rows and client-safe events for each write", async () => {
    const p = await m.createPatient({ first_name: "Ada", last_name: "Byron" });
    const created = await m.t.request("POST", m.path(p.id, kind), { token: m.token, body: KINDS[kind].create });
    expect(created.status).toBe(201);
    expect(created.headers.get("etag")).toBe('"1"');
    const rec = created.body;
    expect(rec).toMatchObject({ ...KINDS[kind].create, patient: { uuid: p.id, name: "Ada Byron" }, version: 1, deleted_at: null });
    expect(rec.created_at).toMatch(/Z$/);
    expect(rec.updated_at).toBe(rec.created_at);
    const got = await m.t.request("GET", m.path(p.id, kind, rec.id), { token: m.token });
    expect(got.status).toBe(200);
    expect(got.headers.get("etag")).toBe('"1"');
    expect({ ...got.body, interaction_warnings: undefined }).toEqual({ ...rec, interaction_warnings: undefined });
    const list = await m.t.request("GET", m.path(p.id, kind), { token: m.token });
    expect(list.body).toEqual({ items: [got.body], page: 1, page_size: 50, total: 1 });

    const patched = await m.t.request("PATCH", m.path(p.id, kind, rec.id), { token: m.token, body: { base_version: 1, ...KINDS[kind].patch } });
    expect(patched.status).toBe(200);
    expect(patched.headers.get("etag")).toBe('"2"');
    expect(patched.body).toMatchObject({ ...KINDS[kind].patch, version: 2 });

    const archived = await m.t.request("POST", `${m.path(p.id, kind, rec.id)}/archive`, { token: m.token });
    expect(archived.status).toBe(200);
    expect(archived.body.version).toBe(3);
    expect(archived.body.deleted_at).toMatch(/Z$/);
    expect((await m.t.request("GET", m.path(p.id, kind), { token: m.token })).body.total).toBe(0);

    const name = KINDS[kind].event;
    const audits = await auditOf(m.t, m.orgId, rec.id);
    expect(audits.map((a) => a.action).sort()).toEqual([`${name}.archived`, `${name}.created`, `${name}.updated`]);
    const update = audits.find((a) => a.action === `${name}.updated`)!;
    expect(update.resource_type).toBe(name);
    expect(update.before.version).toBe(1);
    expect(update.after.version).toBe(2);

    const ev = await m.eventsOf(rec.id);
    expect(ev.map((e) => e.type)).toEqual([`${name}.created`, `${name}.updated`, `${name}.archived`]);
    expect(ev[0]!.data).toEqual({ id: rec.id, patient_id: p.id });
    expect(ev[1]!.data).toEqual({ id: rec.id, patient_id: p.id, changed_fields: Object.keys(KINDS[kind].patch) });
    expect(ev[2]!.data).toEqual({ id: rec.id, patient_id: p.id, changed_fields: kind === "alerts" ? ["status", "deleted_at"] : ["deleted_at"] });
    // ids and field names only: none of the record's text reaches the stream
    const texts = Object.values(KINDS[kind].create).map(String);
    for (const e of ev) for (const s of texts) expect(JSON.stringify(e)).not.toContain(s);
  });

  test("events carry the patient's practice (location) as practice_id", async () => {
    const loc = (await m.t.request("POST", `/api/v1/${m.orgId}/locations`, { token: m.token, body: { name: "East", timezone: "UTC" } })).body.id;
    const p = await m.createPatient({ location_uuid: loc });
    const rec = await m.createRecord(p.id, kind);
    const ev = await m.eventsOf(rec.id);
    expect(ev.map((e) => [e.type, e.practice_id, e.resource_type])).toEqual([[`${KINDS[kind].event}.created`, loc, KINDS[kind].event]]);
  });
});
