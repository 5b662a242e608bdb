import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chartApp, READ, WRITE, type ChartApp } from "./fixtures";

// Authentication, permission and tenant isolation on every charted-procedure route.

let m: ChartApp;
let readerOnly: string;
let writerOnly: string;
let patientsOnly: string;
let outsider: string;
beforeAll(async () => {
  const app = await chartApp({
    readerOnly: [READ],
    writerOnly: [WRITE],
    patientsOnly: ["patients.read", "patients.write"],
    outsider: { org: "B", keys: [READ, WRITE] },
  });
  m = app;
  ({ readerOnly, writerOnly, patientsOnly, outsider } = app.tokens);
});
afterAll(() => m.t.close());

async function routes(org = m.orgId) {
  const p = await m.createPatient({}, org);
  const proc = await m.chart(p.id, "D0150", {}, org);
  const code = await m.codeId("D0150", org);
  return {
    proc,
    reads: [
      ["GET", m.procPath(p.id, org)],
      ["GET", m.procById(proc.id, org)],
    ] as [string, string, unknown?][],
    writes: [
      ["POST", m.procPath(p.id, org), { procedure_code_uuid: code }],
      ["PATCH", m.procById(proc.id, org), { base_version: 1, note: "changed" }],
      ["DELETE", `${m.procById(proc.id, org)}?base_version=1`],
    ] as [string, string, unknown?][],
  };
}

describe("charted procedures access", () => {
  test("401 without a token on every route; nothing written", async () => {
    const { proc, reads, writes } = await routes();
    for (const [method, path, body] of [...reads, ...writes]) {
      const r = await m.t.request(method, path, { body });
      expect([method, path, r.status, r.headers.get("www-authenticate")]).toEqual([method, path, 401, "Bearer"]);
    }
    expect(await m.rowOf("procedure", proc.id)).toMatchObject({ version: 1, note: "", deleted_at: null });
  });

  test("403: reads need clinical.read, writes clinical.write; nothing written", async () => {
    const { proc, reads, writes } = await routes();
    for (const [method, path, body] of [...reads, ...writes]) {
      const r = await m.t.request(method, path, { token: patientsOnly, body });
      expect([method, path, r.status, r.body.code]).toEqual([method, path, 403, "forbidden"]);
    }
    for (const [method, path, body] of writes) expect([method, (await m.t.request(method, path, { token: readerOnly, body })).status]).toEqual([method, 403]);
    for (const [method, path] of reads) {
      expect((await m.t.request(method, path, { token: writerOnly })).status).toBe(403);
      expect((await m.t.request(method, path, { token: readerOnly })).status).toBe(200);
    }
    expect(await m.rowOf("procedure", proc.id)).toMatchObject({ version: 1, note: "", deleted_at: null });
    expect((await m.t.request("GET", m.procPath(proc.patient.uuid), { token: m.token })).body.total).toBe(1);
  });

  test("404 for a caller who is not a member of the org", async () => {
    const { proc, reads, writes } = await routes();
    for (const [method, path, body] of [...reads, ...writes]) {
      expect([method, path, (await m.t.request(method, path, { token: outsider, body })).status]).toEqual([method, path, 404]);
    }
    expect(await m.rowOf("procedure", proc.id)).toMatchObject({ version: 1, deleted_at: null });
  });

  test("another org's patient and procedure ids through this org's path: 404 on every route; they stay unchanged", async () => {
    const foreign = await routes(m.otherOrg);
    const swap = (path: string) => path.replace(`/api/v1/${m.otherOrg}/`, `/api/v1/${m.orgId}/`);
    const code = await m.codeId("D0150");
    for (const [method, path, body] of [...foreign.reads, ...foreign.writes]) {
      const b = method === "POST" ? { procedure_code_uuid: code } : body;
      const r = await m.t.request(method, swap(path), { token: m.token, body: b });
      expect([method, r.status, r.body.code]).toEqual([method, 404, "not_found"]);
    }
    expect(await m.rowOf("procedure", foreign.proc.id, m.otherOrg)).toMatchObject({ version: 1, note: "", deleted_at: null });
  });
});
