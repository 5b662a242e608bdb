import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { conditionsApp, READ, WRITE } from "./fixtures";

// Authentication, permission keys and tenant isolation on every conditions route.

let m: Awaited<ReturnType<typeof conditionsApp>>;
let readerOnly: string;
let writerOnly: string;
let patientsOnly: string;
let outsider: string;
beforeAll(async () => {
  const app = await conditionsApp({
    readerOnly: [READ],
    writerOnly: [WRITE],
    patientsOnly: ["patients.read", "patients.write", "patients.medical.read", "patients.medical.write"],
    outsider: { org: "B", keys: [READ, WRITE] },
  });
  m = app;
  ({ readerOnly, writerOnly, patientsOnly, outsider } = app.tokens);
});
afterAll(() => m.t.close());

type Route = [method: string, path: string, body?: unknown];
function routes(patientId: string, id: string, org?: string) {
  return {
    reads: [
      ["GET", m.listPath(patientId, org)],
      ["GET", m.itemPath(id, org)],
    ] as Route[],
    writes: [
      ["POST", m.listPath(patientId, org), { condition_type: "abscess" }],
      ["PATCH", m.itemPath(id, org), { base_version: 1, status: "resolved" }],
      ["DELETE", `${m.itemPath(id, org)}?base_version=1`],
    ] as Route[],
  };
}

describe("conditions access", () => {
  test("401 without a token on every route (WWW-Authenticate: Bearer); nothing written", async () => {
    const p = await m.createPatient();
    const c = await m.createCondition(p.id);
    const { reads, writes } = routes(p.id, c.id);
    for (const [method, path, body] of [...reads, ...writes]) {
      const r = await m.t.request(method, path, { body });
      expect([method, path, r.status, r.headers.get("www-authenticate")]).toEqual([method, path, 401, "Bearer"]);
    }
    expect(await m.rowOf(c.id)).toMatchObject({ version: 1, status: "active", deleted_at: null });
  });

  test("403: reads need clinical.read, writes clinical.write; nothing written", async () => {
    const p = await m.createPatient();
    const c = await m.createCondition(p.id);
    const { reads, writes } = routes(p.id, c.id);
    for (const [method, path, body] of [...reads, ...writes]) {
      const r = await m.t.request(method, path, { token: patientsOnly, body });
      expect([method, path, r.status, r.body.code]).toEqual([method, path, 403, "forbidden"]);
    }
    for (const [method, path, body] of writes) expect([method, (await m.t.request(method, path, { token: readerOnly, body })).status]).toEqual([method, 403]);
    for (const [method, path] of reads) {
      expect((await m.t.request(method, path, { token: writerOnly })).status).toBe(403);
      expect((await m.t.request(method, path, { token: readerOnly })).status).toBe(200);
    }
    expect(await m.rowOf(c.id)).toMatchObject({ version: 1, status: "active", deleted_at: null });
    expect((await m.t.request("GET", m.listPath(p.id), { token: m.token })).body.total).toBe(1);
  });

  test("a writer with clinical.write only can write", async () => {
    const p = await m.createPatient();
    const r = await m.t.request("POST", m.listPath(p.id), { token: writerOnly, body: { condition_type: "erosion" } });
    expect(r.status).toBe(201);
    expect((await m.t.request("PATCH", m.itemPath(r.body.id), { token: writerOnly, body: { base_version: 1, severity: "mild" } })).status).toBe(200);
  });

  test("404 for a caller who is not a member of the org; nothing written", async () => {
    const p = await m.createPatient();
    const c = await m.createCondition(p.id);
    const { reads, writes } = routes(p.id, c.id);
    for (const [method, path, body] of [...reads, ...writes]) {
      const r = await m.t.request(method, path, { token: outsider, body });
      expect([method, path, r.status]).toEqual([method, path, 404]);
    }
    expect(await m.rowOf(c.id)).toMatchObject({ version: 1, deleted_at: null });
  });

  test("another org's patient and condition are unreachable through this org's path (404); they stay unchanged", async () => {
    const foreignPatient = await m.createPatient({}, m.otherOrg);
    const foreign = await m.createCondition(foreignPatient.id, { tooth_number: "19" }, m.otherOrg);
    const { reads, writes } = routes(foreignPatient.id, foreign.id);
    for (const [method, path, body] of [...reads, ...writes]) {
      const r = await m.t.request(method, path, { token: m.token, body });
      expect([method, path, r.status, r.body.code]).toEqual([method, path, 404, "not_found"]);
    }
    expect(await m.rowOf(foreign.id, m.otherOrg)).toMatchObject({ version: 1, status: "active", deleted_at: null });
    const theirs = await m.t.request("GET", m.listPath(foreignPatient.id, m.otherOrg), { token: m.token });
    expect(theirs.body.total).toBe(1);
    // and this org's path never lists it
    const own = await m.createPatient();
    await m.createCondition(own.id);
    expect((await m.t.request("GET", m.listPath(own.id), { token: m.token })).body.items.map((x: { id: string }) => x.id)).not.toContain(foreign.id);
  });

  test("401 and 404 come before body validation: an anonymous or foreign caller learns nothing from a bad body", async () => {
    const p = await m.createPatient();
    expect((await m.t.request("POST", m.listPath(p.id), { body: { condition_type: "nope" } })).status).toBe(401);
    expect((await m.t.request("POST", m.listPath(p.id), { token: outsider, body: { condition_type: "nope" } })).status).toBe(404);
    expect((await m.t.request("POST", m.listPath(p.id), { token: readerOnly, body: { condition_type: "nope" } })).status).toBe(403);
  });
});
