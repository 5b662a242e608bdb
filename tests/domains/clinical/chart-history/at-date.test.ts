import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { conditionsApp, dayFromToday } from "@tests/domains/clinical/conditions/fixtures";
import { chartProcedure, chartTooth, unchartTooth } from "./fixtures";

// A patient's chart over four years, entered as it happened (plus one late,
// backdated entry and one mistaken record deleted the next day); the snapshot
// is asserted on the days around each change.

let m: Awaited<ReturnType<typeof conditionsApp>>;
let patientId: string;
const ids: Record<string, string> = {};

const at = (date: string, time = "15:00:00") => `${date}T${time}.000Z`;

beforeAll(async () => {
  m = await conditionsApp();
  const p = await m.createPatient({ first_name: "Hist", last_name: "Ory" });
  patientId = p.id;
  const tooth = (n: string, status: string, eff: string, entered = at(eff)) => chartTooth(m.t, m.orgId, patientId, n, status, eff, entered);
  const proc = (key: string, f: Parameters<typeof chartProcedure>[3]) => chartProcedure(m.t, m.orgId, patientId, f).then((id) => (ids[key] = id));

  // 2020-01-10: first exam
  ids.t3a = await tooth("3", "present", "2020-01-10");
  ids.t14a = await tooth("14", "present", "2020-01-10");
  ids.t30a = await tooth("30", "present", "2020-01-10");
  ids.tKa = await tooth("K", "primary", "2020-01-10");
  await proc("prophyDeleted", { code: "D1110", status: "complete", date_service: "2020-01-10", at: at("2020-01-10"), deleted: true });
  ids.c1 = (await m.createCondition(patientId, { condition_type: "caries", tooth_number: "19", date_identified: "2021-01-01" })).id;
  // 2021-06-01: a crown on 30; charted complete then (its current status is what the history shows)
  ids.t30b = await tooth("30", "prosthetic", "2021-06-01");
  await proc("crown", { code: "D2740", tooth: "30", status: "complete", date_service: "2021-06-01", at: at("2021-06-01") });
  ids.c2 = (await m.createCondition(patientId, { condition_type: "watch", tooth_number: "2", date_identified: "2022-01-01" })).id;
  // 2022-03-15: 3 extracted, K exfoliating; the caries on 19 resolved that day
  ids.t3b = await tooth("3", "missing", "2022-03-15");
  ids.tKb = await tooth("K", "exfoliating", "2022-03-15");
  await proc("extraction", { code: "D7140", tooth: "3", status: "complete", date_service: "2022-03-15", at: at("2022-03-15") });
  await m.t.request("PATCH", m.itemPath(ids.c1), { token: m.token, body: { base_version: 1, status: "resolved", date_resolved: "2022-03-15" } });
  const c4 = await m.createCondition(patientId, { condition_type: "fracture", tooth_number: "9", date_identified: "2022-06-01" });
  await m.t.request("DELETE", `${m.itemPath(c4.id)}?base_version=1`, { token: m.token });
  // 2023-02-01: 14 charted residual_root by mistake, deleted the next day: the tooth has left the chart from then on
  ids.t14b = await tooth("14", "residual_root", "2023-02-01");
  await unchartTooth(m.t, m.orgId, ids.t14b, at("2023-02-02"));
  ids.c3 = (await m.createCondition(patientId, { condition_type: "periodontal", date_identified: "2023-06-01", status: "monitoring" })).id;
  // entered 2024-01-05, backdated: 30 lost on 2023-12-20
  ids.t30c = await tooth("30", "missing", "2023-12-20", at("2024-01-05"));
  // planned work, charted later
  await proc("planned", { code: "D2391", tooth: "19", status: "treatment_planned", date_service: "2024-02-01", at: at("2024-02-01") });
});
afterAll(() => m.t.close());

const snapshot = async (date: string) => {
  const r = await m.t.request("GET", `${m.P()}/clinical/patients/${patientId}/chart/at-date?date=${date}`, { token: m.token });
  expect(r.status).toBe(200);
  return r.body;
};
/** The snapshot reduced to what changes: tooth -> status (record id), procedure ids, condition ids. */
const summary = async (date: string) => {
  const s = await snapshot(date);
  expect(s.snapshot_date).toBe(date);
  return {
    teeth: s.tooth_statuses.map((x: { tooth_number: string; status: string; id: string }) => `${x.tooth_number}:${x.status}:${x.id}`),
    procedures: s.charted_procedures.map((x: { id: string }) => x.id),
    conditions: s.patient_conditions.map((x: { id: string }) => x.id),
  };
};

describe("chart at a date", () => {
  test("before the first exam the chart is empty", async () => {
    expect(await snapshot("2019-12-31")).toEqual({ snapshot_date: "2019-12-31", tooth_statuses: [], charted_procedures: [], patient_conditions: [] });
  });

  test("the first exam: the day's records, in chart order; the deleted procedure never shows", async () => {
    expect(await summary("2020-01-10")).toEqual({
      teeth: [`3:present:${ids.t3a}`, `14:present:${ids.t14a}`, `30:present:${ids.t30a}`, `K:primary:${ids.tKa}`],
      procedures: [],
      conditions: [],
    });
  });

  test("a condition shows from the day it was identified", async () => {
    expect((await summary("2020-12-31")).conditions).toEqual([]);
    expect((await summary("2021-01-01")).conditions).toEqual([ids.c1]);
  });

  test("the crown: superseded records show until the day their successor takes effect; procedures carry their current status", async () => {
    expect((await summary("2021-05-31")).teeth).toContain(`30:present:${ids.t30a}`);
    const s = await snapshot("2021-06-01");
    expect(s.tooth_statuses.find((x: { tooth_number: string }) => x.tooth_number === "30")).toMatchObject({
      id: ids.t30b,
      status: "prosthetic",
      superseded_at: at("2024-01-05"),
    });
    expect(s.charted_procedures).toHaveLength(1);
    expect(s.charted_procedures[0]).toMatchObject({
      id: ids.crown,
      procedure_code: "D2740",
      tooth_number: "30",
      status: "complete",
      date_service: "2021-06-01",
      office_fee: "1250.00",
    });
  });

  test("the day before and the day of the extraction; a condition resolved that day is no longer shown", async () => {
    expect(await summary("2022-03-14")).toEqual({
      teeth: [`3:present:${ids.t3a}`, `14:present:${ids.t14a}`, `30:prosthetic:${ids.t30b}`, `K:primary:${ids.tKa}`],
      procedures: [ids.crown],
      conditions: [ids.c1, ids.c2],
    });
    expect(await summary("2022-03-15")).toEqual({
      teeth: [`3:missing:${ids.t3b}`, `14:present:${ids.t14a}`, `30:prosthetic:${ids.t30b}`, `K:exfoliating:${ids.tKb}`],
      procedures: [ids.crown, ids.extraction],
      conditions: [ids.c2],
    });
  });

  test("a deleted condition never shows", async () => {
    expect((await summary("2022-06-01")).conditions).toEqual([ids.c2]);
  });

  test("a deleted tooth record: the tooth leaves the chart from the deleted record's effective date (its predecessor does not come back)", async () => {
    expect((await summary("2023-01-31")).teeth).toContain(`14:present:${ids.t14a}`);
    expect(await summary("2023-02-01")).toEqual({
      teeth: [`3:missing:${ids.t3b}`, `30:prosthetic:${ids.t30b}`, `K:exfoliating:${ids.tKb}`],
      procedures: [ids.crown, ids.extraction],
      conditions: [ids.c2],
    });
  });

  test("a backdated entry counts from its effective date; monitoring conditions show", async () => {
    expect(await summary("2023-12-19")).toEqual({
      teeth: [`3:missing:${ids.t3b}`, `30:prosthetic:${ids.t30b}`, `K:exfoliating:${ids.tKb}`],
      procedures: [ids.crown, ids.extraction],
      conditions: [ids.c2, ids.c3],
    });
    expect((await summary("2023-12-20")).teeth).toEqual([`3:missing:${ids.t3b}`, `30:missing:${ids.t30c}`, `K:exfoliating:${ids.tKb}`]);
  });

  test("planned work shows from its date_service with its current status; today equals the current chart", async () => {
    expect((await summary("2024-01-31")).procedures).toEqual([ids.crown, ids.extraction]);
    const later = await snapshot("2024-02-01");
    expect(later.charted_procedures.map((x: { id: string; status: string }) => [x.id, x.status])).toEqual([
      [ids.crown, "complete"],
      [ids.extraction, "complete"],
      [ids.planned, "treatment_planned"],
    ]);
    const today = await summary(dayFromToday(0));
    expect(today).toEqual({
      teeth: [`3:missing:${ids.t3b}`, `30:missing:${ids.t30c}`, `K:exfoliating:${ids.tKb}`],
      procedures: [ids.crown, ids.extraction, ids.planned],
      conditions: [ids.c2, ids.c3],
    });
    const chart = await m.t.request("GET", `${m.P()}/clinical/patients/${patientId}/tooth-statuses`, { token: m.token });
    expect(chart.body.items.map((x: { id: string }) => x.id)).toEqual([ids.t3b, ids.t30c, ids.tKb]);
  });

  test("conditions in the snapshot are full records", async () => {
    const s = await snapshot("2023-06-01");
    expect(s.patient_conditions).toEqual([
      (await m.t.request("GET", m.itemPath(ids.c2), { token: m.token })).body,
      (await m.t.request("GET", m.itemPath(ids.c3), { token: m.token })).body,
    ]);
  });

  test("an entry made later that takes effect earlier replaces the record it superseded from its own date on", async () => {
    const p = await m.createPatient();
    const first = await chartTooth(m.t, m.orgId, p.id, "8", "present", "2024-05-01", at("2024-05-01"));
    const late = await chartTooth(m.t, m.orgId, p.id, "8", "avulsed", "2024-03-01", at("2024-05-02"));
    const teeth = async (date: string) =>
      (await m.t.request("GET", `${m.P()}/clinical/patients/${p.id}/chart/at-date?date=${date}`, { token: m.token })).body.tooth_statuses.map(
        (x: { id: string }) => x.id,
      );
    expect(await teeth("2024-02-29")).toEqual([]);
    expect(await teeth("2024-03-01")).toEqual([late]);
    expect(await teeth("2024-06-01")).toEqual([late]);
    expect(first).not.toBe(late);
  });
});

describe("through the tooth chart's own endpoints", () => {
  test("PUT supersedes, DELETE removes: the snapshot follows, and today's equals GET tooth-statuses record for record", async () => {
    const p = await m.createPatient();
    const base = `${m.P()}/clinical/patients/${p.id}`;
    const put = (body: Record<string, unknown>) => m.t.request("PUT", `${base}/tooth-statuses`, { token: m.token, body });
    const a = await put({ tooth_number: "5", status: "present", effective_date: "2024-01-01" });
    expect(a.status).toBe(200);
    const b = await put({ tooth_number: "5", status: "missing", effective_date: "2024-06-01" });
    const c = await put({ tooth_number: "12", status: "present", effective_date: "2024-01-01" });
    const d = await put({ tooth_number: "12", status: "impacted", effective_date: "2024-03-01" });
    expect((await m.t.request("DELETE", `${m.P()}/clinical/tooth-statuses/${d.body.id}?base_version=${d.body.version}`, { token: m.token })).status).toBe(204);
    const teeth = async (date: string) => (await m.t.request("GET", `${base}/chart/at-date?date=${date}`, { token: m.token })).body.tooth_statuses;
    expect((await teeth("2024-02-01")).map((x: { id: string }) => x.id)).toEqual([a.body.id, c.body.id]);
    expect((await teeth("2024-05-01")).map((x: { id: string }) => x.id)).toEqual([a.body.id]);
    const now = await teeth(dayFromToday(0));
    expect(now.map((x: { id: string }) => x.id)).toEqual([b.body.id]);
    expect(now).toEqual((await m.t.request("GET", `${base}/tooth-statuses`, { token: m.token })).body.items);
  });
});

describe("timeline", () => {
  test("dates with chart activity, oldest first, counts per source", async () => {
    const r = await m.t.request("GET", `${m.P()}/clinical/patients/${patientId}/chart/timeline`, { token: m.token });
    expect(r.status).toBe(200);
    const ev = (date: string, counts: Partial<Record<"tooth_statuses" | "procedures" | "conditions" | "conditions_resolved", number>>) => ({
      date,
      counts: { tooth_statuses: 0, procedures: 0, conditions: 0, conditions_resolved: 0, ...counts },
    });
    expect(r.body).toEqual({
      events: [
        ev("2020-01-10", { tooth_statuses: 4 }),
        ev("2021-01-01", { conditions: 1 }),
        ev("2021-06-01", { tooth_statuses: 1, procedures: 1 }),
        ev("2022-01-01", { conditions: 1 }),
        ev("2022-03-15", { tooth_statuses: 2, procedures: 1, conditions_resolved: 1 }),
        ev("2023-02-01", { tooth_statuses: 1 }),
        ev("2023-06-01", { conditions: 1 }),
        ev("2023-12-20", { tooth_statuses: 1 }),
        ev("2024-02-01", { procedures: 1 }),
      ],
      total: 9,
    });
  });

  test("a patient without a chart has no events", async () => {
    const p = await m.createPatient();
    const r = await m.t.request("GET", `${m.P()}/clinical/patients/${p.id}/chart/timeline`, { token: m.token });
    expect(r.body).toEqual({ events: [], total: 0 });
  });
});
