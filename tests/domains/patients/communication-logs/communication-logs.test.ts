import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, twoOrgApp, type TestApp } from "@tests/helpers";
import type { EventEnvelope } from "@/platform/events/envelope";
import { archivePatient, JSON_HEADERS, logRows, MISSING, newLocation, newPatient } from "@tests/domains/patients/relationships/fixtures";

let t: TestApp;
let admin: string;
let orgA: string;
let orgB: string;
let locationId: string;
let clerk: { userId: string; token: string }; // both communications keys, nothing else
let reader: string; // patients.communications.read only
let patientsOnly: string; // patients.read/write, no communications keys
let memberOfB: string;
let events: EventEnvelope[];

type P = { id: string; first_name: string; last_name: string };
let pat: P, theirs: P;

const logs = (orgId: string, pid: string, rest = "") => `/api/v1/${orgId}/patients/${pid}/communication-logs${rest}`;
const BODY = { mode: "phone", direction: "sent", note: "Left a voicemail about the recall visit" };

async function create(pid: string, body: Record<string, unknown>, token = admin) {
  const r = await t.request("POST", logs(orgA, pid), { token, body: { ...BODY, ...body } });
  if (r.status !== 201) throw new Error(`create log failed: ${r.status} ${r.text}`);
  return r.body;
}

beforeAll(async () => {
  const w = await twoOrgApp(
    {
      clerk: { keys: ["patients.communications.read", "patients.communications.write"], displayName: "Clara Clerk" },
      reader: ["patients.communications.read"],
      patientsOnly: ["patients.read", "patients.write"],
      memberOfB: { org: "B", keys: ["patients.communications.read", "patients.communications.write"] },
    },
    { events: true },
  );
  ({ t, admin, orgA, orgB, events } = w);
  clerk = w.members.clerk;
  ({ reader, patientsOnly, memberOfB } = w.tokens);
  locationId = await newLocation(t, orgA);
  pat = await newPatient(t, orgA, { first_name: "Pam", last_name: "Phone", location_uuid: locationId });
  theirs = await newPatient(t, orgB, { first_name: "Theo", last_name: "Theirs" });
});
afterAll(() => t.close());

describe("POST .../communication-logs", () => {
  test("201 with the entry; the time in UTC; the recording user from the caller; audited; published without the note", async () => {
    const before = events.length;
    const r = await t.request("POST", logs(orgA, pat.id), {
      token: clerk.token,
      body: {
        communicated_at: "2025-03-01T09:30:00-06:00",
        mode: "email",
        direction: "received",
        communication_source: "integration",
        subject: "Insurance card",
        note: "Patient emailed a new card",
      },
    });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      patient: { uuid: pat.id, name: "Pam Phone" },
      communicated_at: "2025-03-01T15:30:00.000Z",
      mode: "email",
      direction: "received",
      communication_source: "integration",
      subject: "Insurance card",
      note: "Patient emailed a new card",
      user: { uuid: clerk.userId, name: "Clara Clerk" },
      created_at: expect.stringMatching(/Z$/),
    });
    const audit = await auditOf(t, orgA, r.body.id);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ action: "communication_log.created", resource_type: "communication_log", actor_id: clerk.userId });
    const ev = events.slice(before).find((e) => e.type === "communication_log.created")!;
    expect(ev).toMatchObject({ resource_id: r.body.id, practice_id: locationId, data: { id: r.body.id, patient_id: pat.id } });
    expect(Object.keys(ev.data).sort()).toEqual(["id", "patient_id"]);
    expect(JSON.stringify(ev)).not.toContain("emailed");
  });

  test("defaults: communicated_at now, communication_source user, subject null; text is trimmed", async () => {
    const start = new Date().toISOString();
    const r = await create(pat.id, { note: "  Called back  " });
    expect(r).toMatchObject({ communication_source: "user", subject: null, note: "Called back", mode: "phone", direction: "sent" });
    expect(r.communicated_at >= start && r.communicated_at <= new Date().toISOString()).toBe(true);
    expect(r.communicated_at).toBe(r.created_at);
  });

  test.each([
    ["missing mode", { mode: undefined }, ["body", "mode"], "missing"],
    ["missing direction", { direction: undefined }, ["body", "direction"], "missing"],
    ["missing note", { note: undefined }, ["body", "note"], "missing"],
    ["blank note", { note: "   " }, ["body", "note"], "out_of_range"],
    ["note too long", { note: "x".repeat(10_001) }, ["body", "note"], "out_of_range"],
    ["bad mode", { mode: "pigeon" }, ["body", "mode"], "enum"],
    ["bad direction", { direction: "both" }, ["body", "direction"], "enum"],
    ["bad communication_source", { communication_source: "robot" }, ["body", "communication_source"], "enum"],
    ["note a number", { note: 42 }, ["body", "note"], "type_error"],
    ["subject a boolean", { subject: true }, ["body", "subject"], "type_error"],
    ["subject too long", { subject: "s".repeat(201) }, ["body", "subject"], "out_of_range"],
    ["communicated_at without an offset", { communicated_at: "2025-03-01T09:30:00" }, ["body", "communicated_at"], "format"],
    ["communicated_at not a date", { communicated_at: "yesterday" }, ["body", "communicated_at"], "format"],
    ["communicated_at in the future", { communicated_at: "2999-01-01T00:00:00Z" }, ["body", "communicated_at"], "value_error"],
    ["unknown field", { urgency: "high" }, ["body", "urgency"], "extra_forbidden"],
    ["read-only user", { user: { uuid: MISSING } }, ["body", "user"], "read_only"],
    ["read-only created_at", { created_at: "2025-01-01T00:00:00Z" }, ["body", "created_at"], "read_only"],
  ])("422 %s; nothing written", async (_name, patch, loc, type) => {
    const before = await logRows(t, orgA);
    const r = await t.request("POST", logs(orgA, pat.id), { token: admin, body: { ...BODY, ...patch } });
    expect(r.status).toBe(422);
    expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    expect(await logRows(t, orgA)).toEqual(before);
  });

  test("422 for malformed JSON and for an archived patient (patient_archived); nothing written", async () => {
    const gone = await newPatient(t, orgA, { first_name: "Gil", last_name: "Gone" });
    await archivePatient(t, orgA, gone.id);
    const before = await logRows(t, orgA);
    const bad = await t.request("POST", logs(orgA, pat.id), { token: admin, rawBody: '{"mode": "phone",', headers: JSON_HEADERS });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ["body"], type: "json_invalid" });
    const archived = await t.request("POST", logs(orgA, gone.id), { token: admin, body: BODY });
    expect(archived.status).toBe(422);
    expect(archived.body).toMatchObject({ code: "patient_archived", detail: [{ loc: ["path", "patient_uuid"] }] });
    expect(await logRows(t, orgA)).toEqual(before);
  });

  test("401; 403 without patients.communications.write; 404 for a missing patient, another org's patient, a non-member; nothing written", async () => {
    const before = await logRows(t, orgA);
    const anon = await t.request("POST", logs(orgA, pat.id), { body: BODY });
    expect(anon.status).toBe(401);
    expect(anon.headers.get("www-authenticate")).toBe("Bearer");
    for (const token of [reader, patientsOnly]) expect((await t.request("POST", logs(orgA, pat.id), { token, body: BODY })).status).toBe(403);
    for (const [path, token, detail] of [
      [logs(orgA, MISSING), admin, "Patient not found"],
      [logs(orgA, theirs.id), admin, "Patient not found"],
      [logs(orgA, pat.id), memberOfB, "Organization not found"],
      [logs(orgB, pat.id), memberOfB, "Patient not found"],
    ] as const) {
      const r = await t.request("POST", path, { token, body: BODY });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail, code: "not_found" });
    }
    expect(await logRows(t, orgA)).toEqual(before);
    expect(await logRows(t, orgB)).toEqual([]);
  });
});

describe("GET .../communication-logs", () => {
  let lena: P;
  const at: Record<string, any> = {};
  const ids = async (qs = "") => {
    const r = await t.request("GET", `${logs(orgA, lena.id)}${qs}`, { token: reader });
    if (r.status !== 200) throw new Error(`list failed: ${r.status} ${r.text}`);
    return r.body.items.map((x: any) => x.id);
  };
  beforeAll(async () => {
    lena = await newPatient(t, orgA, { first_name: "Lena", last_name: "Log" });
    // created out of time order: the list sorts by communicated_at
    at.mar = await create(lena.id, {
      communicated_at: "2025-03-10T12:00:00Z",
      mode: "text",
      direction: "sent",
      communication_source: "automated",
      note: "Reminder: 50% OFF whitening",
    });
    at.jan = await create(lena.id, { communicated_at: "2025-01-05T08:00:00Z", mode: "phone", direction: "received", note: "Asked about the BILL" });
    at.feb = await create(lena.id, {
      communicated_at: "2025-02-01T00:00:00Z",
      mode: "mail",
      direction: "sent",
      communication_source: "integration",
      note: "Statement mailed",
    });
    at.apr = await create(lena.id, {
      communicated_at: "2025-04-01T15:00:00+02:00",
      mode: "in_person",
      direction: "neither",
      note: "Discussed billing plan at the desk",
    });
    await create(pat.id, { communicated_at: "2025-02-01T00:00:00Z", note: "Another patient's bill" });
  });

  test("paged, ordered by communicated_at (asc by default, desc on request); only this patient's entries", async () => {
    const r = await t.request("GET", logs(orgA, lena.id), { token: reader });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ page: 1, page_size: 50, total: 4 });
    expect(r.body.items[0]).toEqual(at.jan);
    expect(await ids()).toEqual([at.jan.id, at.feb.id, at.mar.id, at.apr.id]);
    expect(await ids("?sort_dir=desc")).toEqual([at.apr.id, at.mar.id, at.feb.id, at.jan.id]);
    const p2 = await t.request("GET", `${logs(orgA, lena.id)}?page=2&page_size=3`, { token: reader });
    expect(p2.body).toMatchObject({ page: 2, page_size: 3, total: 4 });
    expect(p2.body.items.map((x: any) => x.id)).toEqual([at.apr.id]);
  });

  test("filters: inclusive date range (offsets honoured), mode, direction, communication_source, q (case-insensitive, literal)", async () => {
    expect(await ids("?date_from=2025-02-01T00:00:00Z&date_to=2025-03-10T12:00:00Z")).toEqual([at.feb.id, at.mar.id]);
    expect(await ids("?date_from=2025-02-01T00:00:00.001Z")).toEqual([at.mar.id, at.apr.id]);
    expect(await ids(`?date_to=${encodeURIComponent("2025-04-01T14:59:59+01:00")}`)).toEqual([at.jan.id, at.feb.id, at.mar.id, at.apr.id]);
    expect(await ids(`?date_to=${encodeURIComponent("2025-04-01T13:59:59+02:00")}`)).toEqual([at.jan.id, at.feb.id, at.mar.id]);
    expect(await ids("?mode=mail")).toEqual([at.feb.id]);
    expect(await ids("?direction=sent")).toEqual([at.feb.id, at.mar.id]);
    expect(await ids("?direction=neither")).toEqual([at.apr.id]);
    expect(await ids("?communication_source=user")).toEqual([at.jan.id, at.apr.id]);
    expect(await ids("?communication_source=automated")).toEqual([at.mar.id]);
    expect(await ids("?q=bill")).toEqual([at.jan.id, at.apr.id]);
    expect(await ids("?q=50%25")).toEqual([at.mar.id]);
    expect(await ids("?q=5_%25")).toEqual([]);
    expect(await ids("?q=bill&mode=in_person&direction=neither&communication_source=user&date_from=2025-01-01T00:00:00Z")).toEqual([at.apr.id]);
  });

  test.each([
    ["?date_from=2025-03-01T00:00:00Z&date_to=2025-02-01T00:00:00Z", ["query", "date_to"], "value_error"],
    ["?date_from=2025-03-01", ["query", "date_from"], "format"],
    ["?date_to=2025-03-01T10:00:00", ["query", "date_to"], "format"],
    ["?mode=pigeon", ["query", "mode"], "enum"],
    ["?direction=up", ["query", "direction"], "enum"],
    ["?communication_source=robot", ["query", "communication_source"], "enum"],
    ["?q=", ["query", "q"], "out_of_range"],
    ["?sort_dir=sideways", ["query", "sort_dir"], "enum"],
    ["?page_size=0", ["query", "page_size"], "out_of_range"],
    ["?page=x", ["query", "page"], "type_error"],
    ["?search=bill", ["query", "search"], "extra_forbidden"],
  ])("422 for %s", async (qs, loc, type) => {
    const r = await t.request("GET", `${logs(orgA, lena.id)}${qs}`, { token: reader });
    expect(r.status).toBe(422);
    expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
  });

  test("an archived patient's log stays readable", async () => {
    const ola = await newPatient(t, orgA, { first_name: "Ola", last_name: "Old" });
    const e = await create(ola.id, { note: "Final statement" });
    await archivePatient(t, orgA, ola.id);
    expect((await t.request("GET", logs(orgA, ola.id), { token: reader })).body.items).toEqual([e]);
  });

  test("401; 403 without patients.communications.read; 404 missing patient, another org's patient, non-member", async () => {
    expect((await t.request("GET", logs(orgA, lena.id))).status).toBe(401);
    expect((await t.request("GET", logs(orgA, lena.id), { token: patientsOnly })).status).toBe(403);
    expect((await t.request("GET", logs(orgA, MISSING), { token: admin })).status).toBe(404);
    expect((await t.request("GET", logs(orgA, theirs.id), { token: admin })).body).toEqual({ detail: "Patient not found", code: "not_found" });
    expect((await t.request("GET", logs(orgA, lena.id), { token: memberOfB })).status).toBe(404);
    expect((await t.request("GET", logs(orgB, lena.id), { token: memberOfB })).status).toBe(404);
  });
});

describe("GET .../communication-logs/{id}", () => {
  test("200; 404 through another patient, another org, a missing id; 401; 403", async () => {
    const e = await create(pat.id, { note: "Confirmed by phone" });
    const other = await newPatient(t, orgA, { first_name: "Otto", last_name: "Else" });
    const r = await t.request("GET", logs(orgA, pat.id, `/${e.id}`), { token: reader });
    expect(r.status).toBe(200);
    expect(r.body).toEqual(e);
    for (const [path, token] of [
      [logs(orgA, other.id, `/${e.id}`), admin],
      [logs(orgA, pat.id, `/${MISSING}`), admin],
      [logs(orgB, theirs.id, `/${e.id}`), admin],
      [logs(orgB, pat.id, `/${e.id}`), admin],
      [logs(orgA, pat.id, `/${e.id}`), memberOfB],
    ] as const) {
      const x = await t.request("GET", path, { token });
      expect(x.status).toBe(404);
      expect(x.body.code).toBe("not_found");
    }
    expect((await t.request("GET", logs(orgA, pat.id, `/${e.id}`))).status).toBe(401);
    expect((await t.request("GET", logs(orgA, pat.id, `/${e.id}`), { token: patientsOnly })).status).toBe(403);
  });
});

describe("append-only", () => {
  test.each([
    ["PUT", "collection"],
    ["PATCH", "collection"],
    ["DELETE", "collection"],
    ["PUT", "entry"],
    ["PATCH", "entry"],
    ["DELETE", "entry"],
  ])("%s on the %s is 405 with Allow; nothing changes", async (method, target) => {
    const e = await create(pat.id, { note: "Do not edit me" });
    const before = await logRows(t, orgA);
    const path = logs(orgA, pat.id, target === "entry" ? `/${e.id}` : "");
    const r = await t.request(method, path, { token: admin, body: method === "DELETE" ? undefined : { note: "edited" } });
    expect(r.status).toBe(405);
    expect(r.body).toEqual({ detail: "Communication log entries are append-only", code: "method_not_allowed" });
    expect(r.headers.get("allow")).toBe(target === "entry" ? "GET" : "GET, POST");
    expect(await logRows(t, orgA)).toEqual(before);
    // still guarded: 401 anonymous, 403 without the write key, 404 for a non-member
    expect((await t.request(method, path)).status).toBe(401);
    expect((await t.request(method, path, { token: reader })).status).toBe(403);
    expect((await t.request(method, path, { token: memberOfB })).status).toBe(404);
  });
});
