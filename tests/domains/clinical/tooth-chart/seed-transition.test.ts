import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, busDrained, type TestApp } from "@tests/helpers";
import type { EventEnvelope } from "@/platform/events/envelope";
import { ageDentition } from "@/domains/clinical/tooth-chart/eruption";
import { SUCCESSOR } from "@/domains/clinical/tooth-chart/teeth";
import { sql } from "drizzle-orm";
import { run } from "@/platform/db/work";
import { orgDb } from "@tests/domains/patients/record/fixtures";
import { archivePatient, bornAgo, JSON_HEADERS, MISSING, newPatient, ofPatient, toothChartApp, toothRows } from "./fixtures";

let t: TestApp;
let admin: string;
let orgA: string;
let orgB: string;
let reader: string;
let writer: { userId: string; token: string };
let patientsOnly: string;
let memberOfB: string;
let theirs: { id: string };
let events: EventEnvelope[];
/** Every event of each finished write has arrived (the checks count them exactly). */
const delivered = () => busDrained(t.rt.bus);

const seedPath = (orgId: string, pid: string) => ofPatient(orgId, pid, "/tooth-statuses/seed");
const transitionPath = (orgId: string, pid: string) => ofPatient(orgId, pid, "/tooth-transition");
const chartOf = async (pid: string) => (await t.request("GET", ofPatient(orgA, pid, "/tooth-statuses"), { token: reader })).body;

async function seed(pid: string, mode: string, token = admin) {
  const r = await t.request("POST", seedPath(orgA, pid), { token, body: { mode } });
  if (r.status !== 200) throw new Error(`seed failed: ${r.status} ${r.text}`);
  return r.body;
}
async function put(pid: string, body: Record<string, unknown>) {
  const r = await t.request("PUT", ofPatient(orgA, pid, "/tooth-statuses"), { token: admin, body });
  if (r.status !== 200) throw new Error(`put failed: ${r.status} ${r.text}`);
  return r.body;
}

beforeAll(async () => {
  const w = await toothChartApp();
  ({ t, admin, orgA, orgB, events } = w);
  writer = w.members.writer;
  ({ reader, patientsOnly, memberOfB } = w.tokens);
  theirs = await newPatient(t, orgB, { first_name: "Theo", last_name: "Theirs", date_of_birth: bornAgo(9) });
});
afterAll(() => t.close());

describe("POST .../tooth-statuses/seed", () => {
  test("age_based at 30 years: the 32 permanent teeth present, source age_seeded; audited per record; one tooth_status.seeded event", async () => {
    const adult = await newPatient(t, orgA, { first_name: "Ada", last_name: "Adult", date_of_birth: bornAgo(30) });
    const before = events.length;
    const r = await t.request("POST", seedPath(orgA, adult.id), { token: writer.token, body: { mode: "age_based" } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ teeth_seeded: 32, teeth_removed: 0 });
    const chart = await chartOf(adult.id);
    expect(chart.total).toBe(32);
    expect(chart.items.map((x: any) => x.tooth_number)).toEqual(Array.from({ length: 32 }, (_, i) => String(i + 1)));
    expect(chart.items.every((x: any) => x.status === "present" && x.source === "age_seeded" && x.version === 1 && x.eruption_pct === null)).toBe(true);
    const audit = await auditOf(t, orgA, chart.items[0].id);
    expect(audit).toEqual([expect.objectContaining({ action: "tooth_status.seeded", resource_type: "tooth_status", actor_id: writer.userId })]);
    await delivered();
    const ev = events.slice(before).filter((e) => e.type.startsWith("tooth_status."));
    expect(ev).toHaveLength(1);
    expect(ev[0]).toMatchObject({
      type: "tooth_status.seeded",
      resource_type: "patient",
      resource_id: adult.id,
      data: { patient_id: adult.id, mode: "age_based", teeth_seeded: 32, teeth_removed: 0 },
    });
  });

  test.each([
    [1, 52],
    [4, 52],
    [8, 48],
    [12, 38],
  ])("age_based at %i years follows the eruption table (%i teeth)", async (years, count) => {
    const kid = await newPatient(t, orgA, { first_name: "Kid", last_name: `Age${years}`, date_of_birth: bornAgo(years) });
    expect(await seed(kid.id, "age_based")).toEqual({ teeth_seeded: count, teeth_removed: 0 });
    const chart = await chartOf(kid.id);
    const got = Object.fromEntries(chart.items.map((x: any) => [x.tooth_number, [x.status, x.eruption_pct]]));
    expect(got).toEqual(Object.fromEntries(ageDentition(years * 12).map((x) => [x.tooth_number, [x.status, x.eruption_pct]])));
  });

  test("age_based returns 0 while the patient has current records (seeded or not); nothing changed", async () => {
    const p = await newPatient(t, orgA, { first_name: "Al", last_name: "Ready", date_of_birth: bornAgo(25) });
    expect(await seed(p.id, "age_based")).toEqual({ teeth_seeded: 32, teeth_removed: 0 });
    let before = await toothRows(t, orgA);
    expect(await seed(p.id, "age_based")).toEqual({ teeth_seeded: 0, teeth_removed: 0 });
    expect(await toothRows(t, orgA)).toEqual(before);
    const manual = await newPatient(t, orgA, { first_name: "Man", last_name: "Ual", date_of_birth: bornAgo(25) });
    await put(manual.id, { tooth_number: "8", status: "missing" });
    before = await toothRows(t, orgA);
    expect(await seed(manual.id, "age_based")).toEqual({ teeth_seeded: 0, teeth_removed: 0 });
    expect(await toothRows(t, orgA)).toEqual(before);
  });

  test("reseed: replaces the current age_seeded records from today's date of birth; manual, imported and clinical_chart records and their teeth are kept", async () => {
    const p = await newPatient(t, orgA, { first_name: "Rhea", last_name: "Seed", date_of_birth: bornAgo(8) });
    expect(await seed(p.id, "age_based")).toEqual({ teeth_seeded: 48, teeth_removed: 0 });
    const manual = await put(p.id, { tooth_number: "3", status: "missing" });
    const imported = await put(p.id, { tooth_number: "D", status: "over_retained", source: "imported" });
    const charted = await put(p.id, { tooth_number: "51", status: "supernumerary", source: "clinical_chart" });
    const seeded3 = (await toothRows(t, orgA)).find((x) => x.patient_id === p.id && x.tooth_number === "3" && x.source === "age_seeded")!;
    // the patient's date of birth is corrected: an adult
    const pr = await t.request("PATCH", `/api/v1/${orgA}/patients/${p.id}`, { token: admin, body: { base_version: 1, date_of_birth: bornAgo(30) } });
    expect(pr.status).toBe(200);
    const before = events.length;
    expect(await seed(p.id, "reseed")).toEqual({ teeth_seeded: 31, teeth_removed: 46 });
    const chart = await chartOf(p.id);
    expect(chart.total).toBe(34);
    const byTooth = Object.fromEntries(chart.items.map((x: any) => [x.tooth_number, x]));
    expect(byTooth["3"]).toEqual(manual);
    expect(byTooth.D).toEqual(imported);
    expect(byTooth["51"]).toEqual(charted);
    expect(byTooth["8"]).toMatchObject({ status: "present", source: "age_seeded", version: 2 });
    expect(Object.keys(byTooth).filter((k) => byTooth[k].source === "age_seeded")).toHaveLength(31);
    const rows = (await toothRows(t, orgA)).filter((x) => x.patient_id === p.id);
    // the 46 replaced records are soft-deleted; the age_seeded record that tooth 3's manual one superseded stays history
    expect(rows.filter((x) => x.source === "age_seeded" && x.deleted_at)).toHaveLength(46);
    expect(rows.find((x) => x.id === seeded3.id)).toMatchObject({ deleted_at: null, superseded_at: expect.stringMatching(/Z$/) });
    const removedAudit = await auditOf(t, orgA, rows.find((x) => x.source === "age_seeded" && x.deleted_at)!.id);
    expect(removedAudit.map((a) => a.action)).toEqual(["tooth_status.seeded", "tooth_status.deleted"]);
    await delivered();
    expect(
      events
        .slice(before)
        .filter((e) => e.type === "tooth_status.seeded")
        .map((e) => e.data),
    ).toEqual([{ patient_id: p.id, mode: "reseed", teeth_seeded: 31, teeth_removed: 46 }]);
  });

  test("reseed without any records seeds like age_based", async () => {
    const p = await newPatient(t, orgA, { first_name: "Fresh", last_name: "Start", date_of_birth: bornAgo(4) });
    expect(await seed(p.id, "reseed")).toEqual({ teeth_seeded: 52, teeth_removed: 0 });
  });

  test("422 date_of_birth_required for either mode; 422 patient_archived; nothing written", async () => {
    const nodob = await newPatient(t, orgA, { first_name: "No", last_name: "Dob" });
    const gone = await newPatient(t, orgA, { first_name: "Gone", last_name: "Seed", date_of_birth: bornAgo(10) });
    await archivePatient(t, orgA, gone.id);
    const before = await toothRows(t, orgA);
    for (const mode of ["age_based", "reseed"]) {
      const r = await t.request("POST", seedPath(orgA, nodob.id), { token: admin, body: { mode } });
      expect(r.status).toBe(422);
      expect(r.body).toEqual({
        code: "date_of_birth_required",
        detail: [{ loc: ["path", "patient_uuid"], msg: "The patient has no date of birth", type: "value_error" }],
      });
    }
    const archived = await t.request("POST", seedPath(orgA, gone.id), { token: admin, body: { mode: "age_based" } });
    expect(archived.status).toBe(422);
    expect(archived.body.code).toBe("patient_archived");
    expect(await toothRows(t, orgA)).toEqual(before);
  });

  test.each([
    ["missing mode", {}, ["body", "mode"], "missing"],
    ["bad mode", { mode: "random" }, ["body", "mode"], "enum"],
    ["mode a number", { mode: 1 }, ["body", "mode"], "enum"],
    ["unknown field", { mode: "age_based", age: 5 }, ["body", "age"], "extra_forbidden"],
  ])("422 %s; nothing written", async (_n, body, loc, type) => {
    const p = await newPatient(t, orgA, { first_name: "Val", last_name: "Id", date_of_birth: bornAgo(6) });
    const r = await t.request("POST", seedPath(orgA, p.id), { token: admin, body });
    expect(r.status).toBe(422);
    expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    expect((await chartOf(p.id)).total).toBe(0);
  });

  test("422 malformed JSON; 401; 403 without clinical.write; 404 missing patient, another org's patient, non-member; nothing written", async () => {
    const p = await newPatient(t, orgA, { first_name: "Sec", last_name: "Ure", date_of_birth: bornAgo(6) });
    const before = await toothRows(t, orgA);
    const bad = await t.request("POST", seedPath(orgA, p.id), { token: admin, rawBody: "{mode:", headers: JSON_HEADERS });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ["body"], type: "json_invalid" });
    expect((await t.request("POST", seedPath(orgA, p.id), { body: { mode: "age_based" } })).status).toBe(401);
    for (const token of [reader, patientsOnly])
      expect((await t.request("POST", seedPath(orgA, p.id), { token, body: { mode: "age_based" } })).status).toBe(403);
    for (const [path, token] of [
      [seedPath(orgA, MISSING), admin],
      [seedPath(orgA, theirs.id), admin],
      [seedPath(orgA, p.id), memberOfB],
      [seedPath(orgB, p.id), memberOfB],
    ] as const) {
      const r = await t.request("POST", path, { token, body: { mode: "age_based" } });
      expect(r.status).toBe(404);
      expect(r.body.code).toBe("not_found");
    }
    expect(await toothRows(t, orgA)).toEqual(before);
    expect(await toothRows(t, orgB)).toEqual([]);
  });
});

describe("POST .../tooth-transition", () => {
  const BODY = { primary_tooth_number: "D", primary_status: "exfoliating", successor_tooth_number: "7", successor_status: "partially_erupted" };

  test("200: both teeth get new records in one transaction; placement carried over; audited; one tooth_status.transitioned event", async () => {
    const p = await newPatient(t, orgA, { first_name: "Trans", last_name: "Ition", date_of_birth: bornAgo(8) });
    const oldD = await put(p.id, { tooth_number: "D", status: "primary", rotate: 15, shift_m: 1.5, note: "Rotated" });
    const old7 = await put(p.id, { tooth_number: "7", status: "unerupted", tip_b: -5 });
    const before = events.length;
    const r = await t.request("POST", transitionPath(orgA, p.id), {
      token: writer.token,
      body: { ...BODY, primary_tooth_number: "d", successor_eruption_pct: 40, successor_eruption_stage: "emerging", successor_root_completion: 60 },
    });
    expect(r.status).toBe(200);
    expect(r.body.primary).toMatchObject({
      tooth_number: "D",
      status: "exfoliating",
      source: "manual",
      version: 2,
      rotate: 15,
      shift_m: 1.5,
      note: "",
      eruption_pct: null,
      superseded_at: null,
    });
    expect(r.body.successor).toMatchObject({
      tooth_number: "7",
      status: "partially_erupted",
      version: 2,
      tip_b: -5,
      eruption_pct: 40,
      eruption_stage: "emerging",
      root_completion: 60,
    });
    expect(r.body.primary.created_at).toBe(r.body.successor.created_at);
    const rows = await toothRows(t, orgA);
    expect(rows.find((x) => x.id === oldD.id)!.superseded_at).toBe(r.body.primary.created_at);
    expect(rows.find((x) => x.id === old7.id)!.superseded_at).toBe(r.body.primary.created_at);
    const chart = await chartOf(p.id);
    expect(chart.items.map((x: any) => x.id).sort()).toEqual([r.body.primary.id, r.body.successor.id].sort());
    for (const rec of [r.body.primary, r.body.successor]) {
      expect(await auditOf(t, orgA, rec.id)).toEqual([expect.objectContaining({ action: "tooth_status.transitioned", actor_id: writer.userId })]);
    }
    await delivered();
    const ev = events.slice(before).filter((e) => e.type.startsWith("tooth_status."));
    expect(ev).toHaveLength(1);
    expect(ev[0]).toMatchObject({
      type: "tooth_status.transitioned",
      resource_type: "tooth_status",
      resource_id: r.body.successor.id,
      data: { patient_id: p.id, primary_id: r.body.primary.id, successor_id: r.body.successor.id, primary_tooth_number: "D", successor_tooth_number: "7" },
    });
  });

  test("atomic: when the successor's write fails, the primary tooth's change is rolled back", async () => {
    const p = await newPatient(t, orgA, { first_name: "Roll", last_name: "Back" });
    const oldE = await put(p.id, { tooth_number: "E", status: "primary" });
    const db = await orgDb(t, orgA);
    const exec = (q: ReturnType<typeof sql>) => db.write((tx) => run({ run: () => (tx as any).run(q) }));
    // a test-only trigger makes the successor's insert fail after the primary's records were written
    exec(sql`CREATE TRIGGER fail_successor BEFORE INSERT ON tooth_statuses WHEN NEW.tooth_number = '8' BEGIN SELECT RAISE(ABORT, 'boom'); END`);
    const before = await toothRows(t, orgA);
    try {
      const r = await t.request("POST", transitionPath(orgA, p.id), {
        token: admin,
        body: { ...BODY, primary_tooth_number: "E", successor_tooth_number: "8" },
      });
      expect(r.status).toBe(500);
      expect(r.body).toEqual({ detail: "Internal server error", code: "internal_error" });
    } finally {
      exec(sql`DROP TRIGGER fail_successor`);
    }
    expect(await toothRows(t, orgA)).toEqual(before);
    expect((await chartOf(p.id)).items).toEqual([oldE]);
  });

  test.each(Object.entries(SUCCESSOR))("%s -> %s is accepted (over_retained, present)", async (primary, successor) => {
    const p = await newPatient(t, orgA, { first_name: "Pair", last_name: primary });
    const r = await t.request("POST", transitionPath(orgA, p.id), {
      token: admin,
      body: { primary_tooth_number: primary, primary_status: "over_retained", successor_tooth_number: successor, successor_status: "present" },
    });
    expect(r.status).toBe(200);
    expect([r.body.primary.tooth_number, r.body.primary.status, r.body.primary.version]).toEqual([primary, "over_retained", 1]);
    expect([r.body.successor.tooth_number, r.body.successor.status, r.body.successor.eruption_pct]).toEqual([successor, "present", null]);
  });

  test.each([
    ["A", "5"],
    ["A", "3"],
    ["E", "9"],
    ["F", "8"],
    ["J", "4"],
    ["K", "4"],
    ["K", "29"],
    ["L", "20"],
    ["T", "30"],
    ["O", "8"],
    ["C", "22"],
  ])("422 invalid_succession for %s -> %s; nothing written", async (primary, successor) => {
    const p = await newPatient(t, orgA, { first_name: "Bad", last_name: "Pair" });
    const before = await toothRows(t, orgA);
    const r = await t.request("POST", transitionPath(orgA, p.id), {
      token: admin,
      body: { ...BODY, primary_tooth_number: primary, successor_tooth_number: successor },
    });
    expect(r.status).toBe(422);
    expect(r.body).toEqual({
      code: "invalid_succession",
      detail: [{ loc: ["body", "successor_tooth_number"], msg: `The permanent successor of ${primary} is ${SUCCESSOR[primary]}`, type: "value_error" }],
    });
    expect(await toothRows(t, orgA)).toEqual(before);
  });

  test.each([
    ["missing primary_tooth_number", { primary_tooth_number: undefined }, ["body", "primary_tooth_number"], "missing"],
    ["missing primary_status", { primary_status: undefined }, ["body", "primary_status"], "missing"],
    ["missing successor_tooth_number", { successor_tooth_number: undefined }, ["body", "successor_tooth_number"], "missing"],
    ["missing successor_status", { successor_status: undefined }, ["body", "successor_status"], "missing"],
    ["permanent tooth as primary", { primary_tooth_number: "7" }, ["body", "primary_tooth_number"], "value_error"],
    ["primary U", { primary_tooth_number: "U" }, ["body", "primary_tooth_number"], "value_error"],
    ["supernumerary as primary", { primary_tooth_number: "DS" }, ["body", "primary_tooth_number"], "value_error"],
    ["primary tooth as successor", { successor_tooth_number: "G" }, ["body", "successor_tooth_number"], "value_error"],
    ["successor 33", { successor_tooth_number: "33" }, ["body", "successor_tooth_number"], "value_error"],
    ["successor a number", { successor_tooth_number: 7 }, ["body", "successor_tooth_number"], "type_error"],
    ["primary_status present", { primary_status: "present" }, ["body", "primary_status"], "enum"],
    ["successor_status missing", { successor_status: "missing" }, ["body", "successor_status"], "enum"],
    ["successor_eruption_pct 101", { successor_eruption_pct: 101 }, ["body", "successor_eruption_pct"], "out_of_range"],
    ["successor_eruption_pct 40.5", { successor_eruption_pct: 40.5 }, ["body", "successor_eruption_pct"], "type_error"],
    ["successor_root_completion -1", { successor_root_completion: -1 }, ["body", "successor_root_completion"], "out_of_range"],
    ["successor_eruption_stage", { successor_eruption_stage: "soon" }, ["body", "successor_eruption_stage"], "enum"],
    ["unknown field", { note: "x" }, ["body", "note"], "extra_forbidden"],
  ])("422 %s; nothing written", async (_n, patch, loc, type) => {
    const p = await newPatient(t, orgA, { first_name: "Sch", last_name: "Ema" });
    const before = await toothRows(t, orgA);
    const r = await t.request("POST", transitionPath(orgA, p.id), { token: admin, body: { ...BODY, ...patch } });
    expect(r.status).toBe(422);
    expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    expect(await toothRows(t, orgA)).toEqual(before);
  });

  test("422 malformed JSON and patient_archived; 401; 403; 404 missing patient, another org's patient, non-member; nothing written", async () => {
    const p = await newPatient(t, orgA, { first_name: "Gate", last_name: "Keeper" });
    const gone = await newPatient(t, orgA, { first_name: "Gone", last_name: "Trans" });
    await archivePatient(t, orgA, gone.id);
    const before = await toothRows(t, orgA);
    const bad = await t.request("POST", transitionPath(orgA, p.id), { token: admin, rawBody: '{"primary_tooth_number": ', headers: JSON_HEADERS });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ["body"], type: "json_invalid" });
    const archived = await t.request("POST", transitionPath(orgA, gone.id), { token: admin, body: BODY });
    expect(archived.status).toBe(422);
    expect(archived.body.code).toBe("patient_archived");
    expect((await t.request("POST", transitionPath(orgA, p.id), { body: BODY })).status).toBe(401);
    for (const token of [reader, patientsOnly]) expect((await t.request("POST", transitionPath(orgA, p.id), { token, body: BODY })).status).toBe(403);
    for (const [path, token] of [
      [transitionPath(orgA, MISSING), admin],
      [transitionPath(orgA, theirs.id), admin],
      [transitionPath(orgA, p.id), memberOfB],
      [transitionPath(orgB, p.id), memberOfB],
    ] as const) {
      const r = await t.request("POST", path, { token, body: BODY });
      expect(r.status).toBe(404);
      expect(r.body.code).toBe("not_found");
    }
    expect(await toothRows(t, orgA)).toEqual(before);
    expect(await toothRows(t, orgB)).toEqual([]);
  });
});
