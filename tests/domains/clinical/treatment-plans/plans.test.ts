import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, createMember } from "@tests/helpers";
import { chartApp, MISSING, READ, WRITE, type ChartApp } from "@tests/domains/clinical/charted-procedures/fixtures";

let m: ChartApp;
beforeAll(async () => {
  m = await chartApp();
});
afterAll(() => m.t.close());

const plans = (patientId: string, org = m.orgId) => `${m.P(org)}/patients/${patientId}/treatment-plans`;
const plan = (patientId: string, planId: string, org = m.orgId) => `${plans(patientId, org)}/${planId}`;
const req = (method: string, path: string, body?: unknown) => m.t.request(method, path, { token: m.token, body });

async function newPlan(patientId: string, body: Record<string, unknown> = {}, org = m.orgId) {
  const r = await m.t.request("POST", plans(patientId, org), { token: m.token, body: { name: "Phase plan", ...body } });
  if (r.status !== 201) throw new Error(`plan create failed: ${r.status} ${r.text}`);
  return r.body;
}
async function add(patientId: string, planId: string, procedureId: string, phase?: number) {
  const r = await req("POST", `${plan(patientId, planId)}/procedures`, { procedure_uuid: procedureId, ...(phase ? { phase } : {}) });
  if (r.status !== 201) throw new Error(`add failed: ${r.status} ${r.text}`);
  return r.body;
}
/** A patient with a plan holding a crown (phase 1), a filling (phase 2) and an exam (phase 1). */
async function planWithThree() {
  const p = await m.createPatient();
  const crown = await m.chart(p.id, "D2740", { tooth_number: "3", fee_override: 1000 });
  const filling = await m.chart(p.id, "D2391", { tooth_number: "30", surfaces: "O" });
  const exam = await m.chart(p.id, "D0150");
  const pl = await newPlan(p.id, {
    phases: [
      { phase: 1, name: "Urgent" },
      { phase: 2, name: "Restorative" },
    ],
  });
  await add(p.id, pl.id, crown.id, 1);
  await add(p.id, pl.id, filling.id, 2);
  const full = await add(p.id, pl.id, exam.id);
  return { p, crown, filling, exam, plan: full };
}

describe("treatment plans", () => {
  test("create: defaults; every field; event and audit treatment_plan.created", async () => {
    const p = await m.createPatient();
    const r = await req("POST", plans(p.id), { name: "  Comprehensive  " });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: r.body.id,
      patient: { uuid: p.id, name: "Pat Ient" },
      name: "Comprehensive",
      note: null,
      status: "draft",
      status_changed_at: r.body.created_at,
      phases: [],
      procedures: [],
      procedure_count: 0,
      total_fee: "0.00",
      phase_totals: [],
      version: 1,
      created_at: r.body.created_at,
      updated_at: r.body.created_at,
      deleted_at: null,
    });
    const full = await newPlan(p.id, { name: "Signed", note: "Patient agreed", status: "accepted", phases: [{ phase: 2, name: "Later" }] });
    expect(full).toMatchObject({ name: "Signed", note: "Patient agreed", status: "accepted", phases: [{ phase: 2, name: "Later" }] });
    const ev = await m.eventsOf(r.body.id);
    expect(ev.map((e) => [e.type, e.data])).toEqual([["treatment_plan.created", { id: r.body.id, patient_id: p.id, status: "draft" }]]);
    expect((await auditOf(m.t, m.orgId, r.body.id)).map((a) => a.action)).toEqual(["treatment_plan.created"]);
  });

  test.each([
    ["missing name", {}, ["body", "name"], "missing"],
    ["blank name", { name: " " }, ["body", "name"], "out_of_range"],
    ["status rejected at create", { name: "x", status: "rejected" }, ["body", "status"], "enum"],
    ["status completed at create", { name: "x", status: "completed" }, ["body", "status"], "enum"],
    [
      "duplicate phase numbers",
      {
        name: "x",
        phases: [
          { phase: 1, name: "a" },
          { phase: 1, name: "b" },
        ],
      },
      ["body", "phases"],
      "value_error",
    ],
    ["phase 21", { name: "x", phases: [{ phase: 21, name: "a" }] }, ["body", "phases", 0, "phase"], "out_of_range"],
    ["phase with an unknown key", { name: "x", phases: [{ phase: 1, name: "a", color: "red" }] }, ["body", "phases", 0, "color"], "extra_forbidden"],
    ["name a number", { name: 5 }, ["body", "name"], "type_error"],
    ["unknown field", { name: "x", owner: "me" }, ["body", "owner"], "extra_forbidden"],
    ["total_fee read-only", { name: "x", total_fee: "1.00" }, ["body", "total_fee"], "read_only"],
  ])("422 on create: %s; nothing written", async (_n, body, loc, type) => {
    const p = await m.createPatient();
    const r = await req("POST", plans(p.id), body);
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ loc, type });
    expect((await req("GET", plans(p.id))).body.total).toBe(0);
  });

  test("malformed JSON 422; missing patient 404; archived patient 422 patient_archived", async () => {
    const p = await m.createPatient();
    const bad = await m.t.request("POST", plans(p.id), { token: m.token, rawBody: "[", headers: { "content-type": "application/json" } });
    expect([bad.status, bad.body.detail[0].type]).toEqual([422, "json_invalid"]);
    expect((await req("POST", plans(MISSING), { name: "x" })).status).toBe(404);
    await m.t.request("POST", `/api/v1/${m.orgId}/patients/${p.id}/archive`, { token: m.token });
    const archived = await req("POST", plans(p.id), { name: "x" });
    expect([archived.status, archived.body.code]).toEqual([422, "patient_archived"]);
    expect((await req("GET", plans(p.id))).body.total).toBe(0);
  });

  test("get: procedures in order with their phase, totals of effective fees overall and per phase", async () => {
    const { p, crown, filling, exam, plan: pl } = await planWithThree();
    const r = await req("GET", plan(p.id, pl.id));
    expect(r.status).toBe(200);
    expect(r.body.procedures.map((i: any) => [i.position, i.phase, i.procedure.id])).toEqual([
      [1, 1, crown.id],
      [2, 2, filling.id],
      [3, 1, exam.id],
    ]);
    expect(r.body.procedures[0].procedure).toEqual(await (await req("GET", m.procById(crown.id))).body);
    expect(r.body).toMatchObject({
      procedure_count: 3,
      total_fee: "1270.00",
      version: 4,
      phase_totals: [
        { phase: 1, name: "Urgent", procedure_count: 2, total_fee: "1095.00" },
        { phase: 2, name: "Restorative", procedure_count: 1, total_fee: "175.00" },
      ],
    });
    expect(r.headers.get("etag")).toBe('"4"');
  });

  test("get: 404 for a missing plan, another patient's plan through this patient's path, and a deleted one", async () => {
    const { p, plan: pl } = await planWithThree();
    const other = await m.createPatient();
    expect((await req("GET", plan(other.id, pl.id))).status).toBe(404);
    expect((await req("GET", plan(p.id, MISSING))).status).toBe(404);
    expect((await req("DELETE", `${plan(p.id, pl.id)}?base_version=${pl.version}`)).status).toBe(204);
    expect((await req("GET", plan(p.id, pl.id))).status).toBe(404);
  });

  test("list: the patient's plans only, status filter, paging; 422 for unknown parameters", async () => {
    const p = await m.createPatient();
    const a = await newPlan(p.id, { name: "A" });
    const b = await newPlan(p.id, { name: "B", status: "proposed" });
    await newPlan((await m.createPatient()).id, { name: "elsewhere" });
    expect((await req("GET", plans(p.id))).body).toMatchObject({ total: 2, page: 1, page_size: 50, items: [{ id: a.id }, { id: b.id }] });
    expect((await req("GET", `${plans(p.id)}?status=proposed`)).body.items.map((i: any) => i.id)).toEqual([b.id]);
    expect((await req("GET", `${plans(p.id)}?page=2&page_size=1`)).body.items.map((i: any) => i.id)).toEqual([b.id]);
    for (const q of ["status=open", "page_size=0", "sort=name"]) expect((await req("GET", `${plans(p.id)}?${q}`)).status).toBe(422);
    expect((await req("GET", plans(MISSING))).status).toBe(404);
  });

  test("PATCH: name, note, phases; 409 stale; 422 status (use the status route); nothing changed when refused", async () => {
    const p = await m.createPatient();
    const pl = await newPlan(p.id);
    const r = await req("PATCH", plan(p.id, pl.id), { base_version: 1, name: "Renamed", note: "n", phases: [{ phase: 1, name: "One" }] });
    expect(r.body).toMatchObject({ name: "Renamed", note: "n", phases: [{ phase: 1, name: "One" }], version: 2 });
    expect(((await m.eventsOf(pl.id)).at(-1)!.data.changed_fields as string[]).sort()).toEqual(["name", "note", "phases"]);
    const stale = await req("PATCH", plan(p.id, pl.id), { base_version: 1, name: "Stale" });
    expect([stale.status, stale.body.code]).toEqual([409, "version_conflict"]);
    const status = await req("PATCH", plan(p.id, pl.id), { base_version: 2, status: "accepted" });
    expect([status.status, status.body.detail[0].type]).toEqual([422, "read_only"]);
    expect((await req("PATCH", plan(p.id, pl.id), { name: "x" })).status).toBe(422);
    expect((await req("PATCH", plan(p.id, MISSING), { base_version: 1, name: "x" })).status).toBe(404);
    expect(await m.rowOf("plan", pl.id)).toMatchObject({ name: "Renamed", status: "draft", version: 2 });
  });

  const PLAN_STATUSES = ["draft", "proposed", "accepted", "rejected", "completed"] as const;
  const PLAN_ALLOWED: Record<string, string[]> = {
    draft: ["proposed", "accepted"],
    proposed: ["draft", "accepted", "rejected"],
    accepted: ["proposed", "rejected", "completed"],
    rejected: ["draft"],
    completed: [],
  };
  const PATH_TO: Record<string, string[]> = {
    draft: [],
    proposed: ["proposed"],
    accepted: ["accepted"],
    rejected: ["proposed", "rejected"],
    completed: ["accepted", "completed"],
  };
  test.each(PLAN_STATUSES.flatMap((from) => PLAN_STATUSES.map((to) => [from, to, PLAN_ALLOWED[from]!.includes(to)] as const)))(
    "status %s -> %s: allowed %p",
    async (from, to, allowed) => {
      const p = await m.createPatient();
      let pl = await newPlan(p.id);
      for (const s of PATH_TO[from]!) pl = (await req("POST", `${plan(p.id, pl.id)}/status`, { base_version: pl.version, status: s })).body;
      expect(pl.status).toBe(from);
      const r = await req("POST", `${plan(p.id, pl.id)}/status`, { base_version: pl.version, status: to });
      if (allowed) {
        expect(r.status).toBe(200);
        expect(r.body).toMatchObject({ status: to, version: pl.version + 1 });
        const ev = (await m.eventsOf(pl.id)).at(-1)!;
        expect([ev.type, ev.data.from_status, ev.data.status]).toEqual(["treatment_plan.status_changed", from, to]);
      } else {
        expect(r.status).toBe(422);
        expect(r.body.code).toBe("invalid_transition");
        expect(await m.rowOf("plan", pl.id)).toMatchObject({ status: from, version: pl.version });
      }
    },
  );

  test("status: 409 stale, 422 bad status or missing base_version, 404 missing plan", async () => {
    const p = await m.createPatient();
    const pl = await newPlan(p.id);
    expect((await req("POST", `${plan(p.id, pl.id)}/status`, { base_version: 9, status: "proposed" })).status).toBe(409);
    expect((await req("POST", `${plan(p.id, pl.id)}/status`, { base_version: 1, status: "open" })).status).toBe(422);
    expect((await req("POST", `${plan(p.id, pl.id)}/status`, { status: "proposed" })).status).toBe(422);
    expect((await req("POST", `${plan(p.id, MISSING)}/status`, { base_version: 1, status: "proposed" })).status).toBe(404);
    expect(await m.rowOf("plan", pl.id)).toMatchObject({ status: "draft", version: 1 });
  });
});

describe("plan procedures", () => {
  test("add: appended at the end, phase default 1, plan version bumped; event procedure_added; audit", async () => {
    const p = await m.createPatient();
    const pl = await newPlan(p.id);
    const proc = await m.chart(p.id, "D2740", { tooth_number: "3" });
    const r = await req("POST", `${plan(p.id, pl.id)}/procedures`, { procedure_uuid: proc.id.toUpperCase() });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ version: 2, procedure_count: 1, total_fee: "1250.00", procedures: [{ position: 1, phase: 1, procedure: { id: proc.id } }] });
    const ev = (await m.eventsOf(pl.id)).at(-1)!;
    expect([ev.type, ev.data]).toEqual([
      "treatment_plan.procedure_added",
      { id: pl.id, changed_fields: ["procedures"], procedure_id: proc.id, patient_id: p.id },
    ]);
    expect((await auditOf(m.t, m.orgId, pl.id)).map((a) => a.action)).toEqual(["treatment_plan.created", "treatment_plan.procedure_added"]);
  });

  test("add: 404 for another patient's, a deleted, a missing and another org's procedure; 409 already in the plan; nothing changed", async () => {
    const p = await m.createPatient();
    const pl = await newPlan(p.id);
    const others = await m.chart((await m.createPatient()).id, "D0150");
    const deleted = await m.chart(p.id, "D0150");
    await req("DELETE", `${m.procById(deleted.id)}?base_version=1`);
    const foreign = await m.chart((await m.createPatient({}, m.otherOrg)).id, "D0150", {}, m.otherOrg);
    for (const id of [others.id, deleted.id, MISSING, foreign.id]) {
      const r = await req("POST", `${plan(p.id, pl.id)}/procedures`, { procedure_uuid: id });
      expect([r.status, r.body.detail]).toEqual([404, "Charted procedure not found"]);
    }
    const proc = await m.chart(p.id, "D0150");
    await add(p.id, pl.id, proc.id);
    const dup = await req("POST", `${plan(p.id, pl.id)}/procedures`, { procedure_uuid: proc.id, phase: 2 });
    expect([dup.status, dup.body.code]).toEqual([409, "duplicate"]);
    expect(await m.planLinks(pl.id)).toHaveLength(1);
    expect(await m.rowOf("plan", pl.id)).toMatchObject({ version: 2 });
  });

  test("add: 422 procedure_not_plannable for completed and existing work; 422 plan_locked on rejected and completed plans; 409 stale base_version", async () => {
    const p = await m.createPatient();
    const pl = await newPlan(p.id);
    for (const status of ["complete", "existing_current", "existing_other"]) {
      const proc = await m.chart(p.id, "D0150", { status });
      const r = await req("POST", `${plan(p.id, pl.id)}/procedures`, { procedure_uuid: proc.id });
      expect([status, r.status, r.body.code]).toEqual([status, 422, "procedure_not_plannable"]);
    }
    const referred = await m.chart(p.id, "D0150", { status: "referred" });
    expect((await add(p.id, pl.id, referred.id)).procedure_count).toBe(1);
    const proc = await m.chart(p.id, "D0150");
    const stale = await req("POST", `${plan(p.id, pl.id)}/procedures`, { procedure_uuid: proc.id, base_version: 1 });
    expect([stale.status, stale.body.code]).toEqual([409, "version_conflict"]);
    const proposed = (await req("POST", `${plan(p.id, pl.id)}/status`, { base_version: 2, status: "proposed" })).body;
    const rejected = (await req("POST", `${plan(p.id, pl.id)}/status`, { base_version: proposed.version, status: "rejected" })).body;
    for (const [method, path, body] of [
      ["POST", `${plan(p.id, pl.id)}/procedures`, { procedure_uuid: proc.id }],
      ["PATCH", `${plan(p.id, pl.id)}/procedures/${referred.id}`, { phase: 2 }],
      ["DELETE", `${plan(p.id, pl.id)}/procedures/${referred.id}`],
      ["POST", `${plan(p.id, pl.id)}/reorder`, { procedure_uuids: [referred.id] }],
    ] as const) {
      const r = await req(method, path, body);
      expect([method, r.status, r.body.code]).toEqual([method, 422, "plan_locked"]);
    }
    expect(await m.rowOf("plan", pl.id)).toMatchObject({ version: rejected.version });
    expect((await m.planLinks(pl.id)).map((l: any) => l.phase)).toEqual([1]);
  });

  test("add: 422 for a bad procedure_uuid, phase 0, unknown fields", async () => {
    const p = await m.createPatient();
    const pl = await newPlan(p.id);
    const proc = await m.chart(p.id, "D0150");
    for (const [body, loc] of [
      [{ procedure_uuid: "x" }, "procedure_uuid"],
      [{ procedure_uuid: proc.id, phase: 0 }, "phase"],
      [{ procedure_uuid: proc.id, note: "n" }, "note"],
      [{}, "procedure_uuid"],
    ] as const) {
      const r = await req("POST", `${plan(p.id, pl.id)}/procedures`, body);
      expect([r.status, r.body.detail[0].loc]).toEqual([422, ["body", loc]]);
    }
    expect(await m.planLinks(pl.id)).toHaveLength(0);
  });

  test("move to another phase; remove (the procedure stays charted); 404 when not in the plan", async () => {
    const { p, crown, filling, exam, plan: pl } = await planWithThree();
    const moved = await req("PATCH", `${plan(p.id, pl.id)}/procedures/${exam.id}`, { phase: 2 });
    expect(moved.status).toBe(200);
    expect(moved.body.phase_totals).toEqual([
      { phase: 1, name: "Urgent", procedure_count: 1, total_fee: "1000.00" },
      { phase: 2, name: "Restorative", procedure_count: 2, total_fee: "270.00" },
    ]);
    const removed = await req("DELETE", `${plan(p.id, pl.id)}/procedures/${filling.id}?base_version=${moved.body.version}`);
    expect(removed.status).toBe(200);
    expect(removed.body.procedures.map((i: any) => [i.position, i.procedure.id])).toEqual([
      [1, crown.id],
      [2, exam.id],
    ]);
    expect((await req("GET", m.procById(filling.id))).status).toBe(200);
    const ev = (await m.eventsOf(pl.id)).at(-1)!;
    expect([ev.type, ev.data.procedure_ids]).toEqual(["treatment_plan.procedure_removed", [filling.id]]);
    expect((await req("DELETE", `${plan(p.id, pl.id)}/procedures/${filling.id}`)).status).toBe(404);
    expect((await req("PATCH", `${plan(p.id, pl.id)}/procedures/${filling.id}`, { phase: 1 })).status).toBe(404);
    expect((await req("DELETE", `${plan(p.id, pl.id)}/procedures/${crown.id}?base_version=1`)).status).toBe(409);
    expect((await req("PATCH", `${plan(p.id, pl.id)}/procedures/${crown.id}`, { phase: 21 })).status).toBe(422);
    expect(await m.planLinks(pl.id)).toHaveLength(2);
  });

  test("reorder: every procedure once in the new order; 422 reorder_mismatch otherwise (nothing changed)", async () => {
    const { p, crown, filling, exam, plan: pl } = await planWithThree();
    const r = await req("POST", `${plan(p.id, pl.id)}/reorder`, { procedure_uuids: [exam.id, crown.id, filling.id] });
    expect(r.status).toBe(200);
    expect(r.body.procedures.map((i: any) => [i.position, i.phase, i.procedure.id])).toEqual([
      [1, 1, exam.id],
      [2, 1, crown.id],
      [3, 2, filling.id],
    ]);
    expect((await m.eventsOf(pl.id)).at(-1)!.type).toBe("treatment_plan.reordered");
    for (const ids of [
      [exam.id, crown.id],
      [exam.id, crown.id, filling.id, MISSING],
      [exam.id, exam.id, crown.id],
    ]) {
      const bad = await req("POST", `${plan(p.id, pl.id)}/reorder`, { procedure_uuids: ids });
      expect([bad.status, bad.body.code]).toEqual([422, "reorder_mismatch"]);
    }
    expect((await req("POST", `${plan(p.id, pl.id)}/reorder`, { procedure_uuids: [] })).status).toBe(422);
    expect((await req("POST", `${plan(p.id, pl.id)}/reorder`, { procedure_uuids: [exam.id, crown.id, filling.id], base_version: 1 })).status).toBe(409);
    const now = await req("GET", plan(p.id, pl.id));
    expect(now.body.procedures.map((i: any) => i.procedure.id)).toEqual([exam.id, crown.id, filling.id]);
    expect(now.body.version).toBe(r.body.version);
  });

  test("deleting a procedure removes it from its plans (each plan's version bumped, event procedure_removed)", async () => {
    const { p, crown, plan: pl } = await planWithThree();
    const second = await newPlan(p.id, { name: "Alternative" });
    await add(p.id, second.id, crown.id);
    expect((await req("DELETE", `${m.procById(crown.id)}?base_version=1`)).status).toBe(204);
    const first = await req("GET", plan(p.id, pl.id));
    expect(first.body).toMatchObject({ procedure_count: 2, version: pl.version + 1 });
    expect(first.body.procedures.map((i: any) => i.procedure.id)).not.toContain(crown.id);
    expect((await req("GET", plan(p.id, second.id))).body.procedure_count).toBe(0);
    const ev = (await m.eventsOf(pl.id)).at(-1)!;
    expect([ev.type, ev.data.procedure_ids]).toEqual(["treatment_plan.procedure_removed", [crown.id]]);
  });

  test("a completed procedure stays in its plan and counts in the totals", async () => {
    const { p, crown, plan: pl } = await planWithThree();
    await m.setStatus(crown.id, "complete");
    const r = await req("GET", plan(p.id, pl.id));
    expect(r.body.procedures[0].procedure.status).toBe("complete");
    expect(r.body.total_fee).toBe("1270.00");
  });

  test("delete plan: 204, links removed, procedures stay; 409 stale; 404 again; audit", async () => {
    const { p, crown, plan: pl } = await planWithThree();
    expect((await req("DELETE", `${plan(p.id, pl.id)}?base_version=1`)).status).toBe(409);
    expect((await req("DELETE", plan(p.id, pl.id))).status).toBe(422);
    expect(await m.planLinks(pl.id)).toHaveLength(3);
    expect((await req("DELETE", `${plan(p.id, pl.id)}?base_version=${pl.version}`)).status).toBe(204);
    expect(await m.planLinks(pl.id)).toHaveLength(0);
    expect((await req("GET", m.procById(crown.id))).status).toBe(200);
    expect((await req("DELETE", `${plan(p.id, pl.id)}?base_version=${pl.version + 1}`)).status).toBe(404);
    expect((await auditOf(m.t, m.orgId, pl.id)).map((a) => a.action).at(-1)).toBe("treatment_plan.deleted");
  });
});

describe("plan access", () => {
  test("401, 403, 404 outsider, and another org's ids through this org's path on every route; nothing changed", async () => {
    const readerOnly = (await createMember(m.t, m.orgId, [READ])).token;
    const noClinical = (await createMember(m.t, m.orgId, ["patients.read", "patients.write"])).token;
    const outsider = (await createMember(m.t, m.otherOrg, [READ, WRITE])).token;
    const routesOf = async (org: string) => {
      const p = await m.createPatient({}, org);
      const a = await m.chart(p.id, "D0150", {}, org);
      const b = await m.chart(p.id, "D0150", {}, org);
      const pl = await newPlan(p.id, {}, org);
      await m.t.request("POST", `${plan(p.id, pl.id, org)}/procedures`, { token: m.token, body: { procedure_uuid: a.id } });
      const base = plan(p.id, pl.id, org);
      return {
        planId: pl.id,
        reads: [
          ["GET", plans(p.id, org)],
          ["GET", base],
        ] as [string, string, unknown?][],
        writes: [
          ["POST", plans(p.id, org), { name: "n" }],
          ["PATCH", base, { base_version: 2, name: "x" }],
          ["POST", `${base}/status`, { base_version: 2, status: "proposed" }],
          ["POST", `${base}/procedures`, { procedure_uuid: b.id }],
          ["PATCH", `${base}/procedures/${a.id}`, { phase: 3 }],
          ["POST", `${base}/reorder`, { procedure_uuids: [a.id] }],
          ["DELETE", `${base}/procedures/${a.id}`],
          ["DELETE", `${base}?base_version=2`],
        ] as [string, string, unknown?][],
      };
    };
    const mine = await routesOf(m.orgId);
    for (const [method, path, body] of [...mine.reads, ...mine.writes]) {
      expect([method, path, (await m.t.request(method, path, { body })).status]).toEqual([method, path, 401]);
      expect([method, path, (await m.t.request(method, path, { token: noClinical, body })).status]).toEqual([method, path, 403]);
      expect([method, path, (await m.t.request(method, path, { token: outsider, body })).status]).toEqual([method, path, 404]);
    }
    for (const [method, path, body] of mine.writes)
      expect([method, path, (await m.t.request(method, path, { token: readerOnly, body })).status]).toEqual([method, path, 403]);
    for (const [method, path] of mine.reads) expect((await m.t.request(method, path, { token: readerOnly })).status).toBe(200);
    expect(await m.rowOf("plan", mine.planId)).toMatchObject({ version: 2, name: "Phase plan", deleted_at: null });

    const foreign = await routesOf(m.otherOrg);
    const swap = (path: string) => path.replace(`/api/v1/${m.otherOrg}/`, `/api/v1/${m.orgId}/`);
    for (const [method, path, body] of [...foreign.reads, ...foreign.writes]) {
      expect([method, path, (await m.t.request(method, swap(path), { token: m.token, body })).status]).toEqual([method, path, 404]);
    }
    expect(await m.rowOf("plan", foreign.planId, m.otherOrg)).toMatchObject({ version: 2, name: "Phase plan", deleted_at: null });
    expect(await m.planLinks(foreign.planId, m.otherOrg)).toHaveLength(1);
  });
});
