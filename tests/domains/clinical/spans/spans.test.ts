import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, createMember } from "@tests/helpers";
import { chartApp, MISSING, READ, WRITE, type ChartApp } from "@tests/domains/clinical/charted-procedures/fixtures";

let m: ChartApp;
beforeAll(async () => {
  m = await chartApp();
});
afterAll(() => m.t.close());

const spans = (patientId: string, org = m.orgId) => `${m.P(org)}/patients/${patientId}/spans`;
const span = (patientId: string, spanId: string, org = m.orgId) => `${spans(patientId, org)}/${spanId}`;
const req = (method: string, path: string, body?: unknown) => m.t.request(method, path, { token: m.token, body });

/** A bridge from tooth 3 to 5: retainer crowns on 3 and 5, a pontic on 4 (charted, not yet spanned). */
async function bridgeProcedures(org = m.orgId) {
  const p = await m.createPatient({}, org);
  const a3 = await m.chart(p.id, "D6750", { tooth_number: "3" }, org);
  const p4 = await m.chart(p.id, "D6240", { tooth_number: "4" }, org);
  const a5 = await m.chart(p.id, "D6750", { tooth_number: "5" }, org);
  return { p, a3, p4, a5 };
}
async function bridge(org = m.orgId) {
  const b = await bridgeProcedures(org);
  const r = await m.t.request("POST", spans(b.p.id, org), {
    token: m.token,
    body: {
      note: "3-unit PFM bridge",
      members: [
        { procedure_uuid: b.a3.id, role: "abutment", position: 1 },
        { procedure_uuid: b.p4.id, role: "pontic", position: 2 },
        { procedure_uuid: b.a5.id, role: "abutment", position: 3 },
      ],
    },
  });
  if (r.status !== 201) throw new Error(`span create failed: ${r.status} ${r.text}`);
  return { ...b, span: r.body };
}

describe("spans", () => {
  test("create a bridge 3-5: members by position with procedure references; event and audit procedure_span.created", async () => {
    const { p, a3, p4, a5, span: s } = await bridge();
    expect(s).toEqual({
      id: s.id,
      patient: { uuid: p.id, name: "Pat Ient" },
      note: "3-unit PFM bridge",
      status: "active",
      span_definition: null,
      members: [
        { charted_procedure: { uuid: a3.id, name: "D6750 #3" }, role: "abutment", position: 1, tooth_number: "3", procedure_status: "treatment_planned" },
        { charted_procedure: { uuid: p4.id, name: "D6240 #4" }, role: "pontic", position: 2, tooth_number: "4", procedure_status: "treatment_planned" },
        { charted_procedure: { uuid: a5.id, name: "D6750 #5" }, role: "abutment", position: 3, tooth_number: "5", procedure_status: "treatment_planned" },
      ],
      version: 1,
      created_at: s.created_at,
      updated_at: s.created_at,
      deleted_at: null,
    });
    const ev = await m.eventsOf(s.id);
    expect(ev.map((e) => [e.type, e.data])).toEqual([["procedure_span.created", { id: s.id, patient_id: p.id, procedure_ids: [a3.id, p4.id, a5.id] }]]);
    expect((await auditOf(m.t, m.orgId, s.id)).map((a) => a.action)).toEqual(["procedure_span.created"]);
    const got = await req("GET", span(p.id, s.id));
    expect(got.body).toEqual(s);
    expect(got.headers.get("etag")).toBe('"1"');
  });

  test("positions default to the list order; members are answered by position; span_definition stored as given", async () => {
    const { p, a3, p4, a5 } = await bridgeProcedures();
    const def = "0190a1b2-0000-7000-8000-00000000abcd";
    const r = await req("POST", spans(p.id), {
      span_definition_uuid: def,
      members: [
        { procedure_uuid: a5.id, role: "retainer", position: 9 },
        { procedure_uuid: a3.id, role: "retainer" },
        { procedure_uuid: p4.id, role: "pontic" },
      ],
    });
    expect(r.status).toBe(201);
    expect(r.body.members.map((x: any) => [x.position, x.charted_procedure.uuid])).toEqual([
      [2, a3.id],
      [3, p4.id],
      [9, a5.id],
    ]);
    expect(r.body).toMatchObject({ note: "", span_definition: { uuid: def, name: null } });
    const members = await req("GET", `${span(p.id, r.body.id)}/members`);
    expect(members.body).toEqual({ items: r.body.members, total: 3 });
  });

  test.each([
    ["one member", (ids: string[]) => ({ members: [{ procedure_uuid: ids[0], role: "pontic" }] }), ["body", "members"], "out_of_range", undefined],
    ["no members", () => ({ members: [] }), ["body", "members"], "out_of_range", undefined],
    ["members missing", () => ({ note: "x" }), ["body", "members"], "missing", undefined],
    [
      "bad role",
      (ids: string[]) => ({
        members: [
          { procedure_uuid: ids[0], role: "crown" },
          { procedure_uuid: ids[1], role: "pontic" },
        ],
      }),
      ["body", "members", 0, "role"],
      "enum",
      undefined,
    ],
    [
      "position 0",
      (ids: string[]) => ({
        members: [
          { procedure_uuid: ids[0], role: "abutment", position: 0 },
          { procedure_uuid: ids[1], role: "pontic" },
        ],
      }),
      ["body", "members", 0, "position"],
      "out_of_range",
      undefined,
    ],
    [
      "member with an unknown key",
      (ids: string[]) => ({
        members: [
          { procedure_uuid: ids[0], role: "abutment", tooth: "3" },
          { procedure_uuid: ids[1], role: "pontic" },
        ],
      }),
      ["body", "members", 0, "tooth"],
      "extra_forbidden",
      undefined,
    ],
    [
      "unknown field",
      (ids: string[]) => ({
        members: [
          { procedure_uuid: ids[0], role: "abutment" },
          { procedure_uuid: ids[1], role: "pontic" },
        ],
        span_type: "bridge",
      }),
      ["body", "span_type"],
      "extra_forbidden",
      undefined,
    ],
    [
      "bad status",
      (ids: string[]) => ({
        members: [
          { procedure_uuid: ids[0], role: "abutment" },
          { procedure_uuid: ids[1], role: "pontic" },
        ],
        status: "open",
      }),
      ["body", "status"],
      "enum",
      undefined,
    ],
    [
      "same procedure twice",
      (ids: string[]) => ({
        members: [
          { procedure_uuid: ids[0], role: "abutment" },
          { procedure_uuid: ids[0].toUpperCase(), role: "pontic" },
        ],
      }),
      ["body", "members", 1, "procedure_uuid"],
      "value_error",
      "duplicate_member",
    ],
    [
      "same position twice",
      (ids: string[]) => ({
        members: [
          { procedure_uuid: ids[0], role: "abutment", position: 2 },
          { procedure_uuid: ids[1], role: "pontic" },
        ],
      }),
      ["body", "members", 1, "position"],
      "value_error",
      "duplicate_position",
    ],
  ])("422: %s; nothing written", async (_n, body, loc, type, code) => {
    const { p, a3, p4 } = await bridgeProcedures();
    const r = await req("POST", spans(p.id), body([a3.id, p4.id]));
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ loc, type });
    expect(r.body.code).toBe(code);
    expect((await req("GET", spans(p.id))).body.total).toBe(0);
  });

  test("malformed JSON 422; missing patient 404", async () => {
    const { p } = await bridgeProcedures();
    const r = await m.t.request("POST", spans(p.id), { token: m.token, rawBody: "{", headers: { "content-type": "application/json" } });
    expect([r.status, r.body.detail[0].type]).toEqual([422, "json_invalid"]);
    expect(
      (
        await req("POST", spans(MISSING), {
          members: [
            { procedure_uuid: MISSING, role: "pontic" },
            { procedure_uuid: MISSING.replace("f", "e"), role: "pontic" },
          ],
        })
      ).status,
    ).toBe(404);
  });

  test("members must be the patient's own, not deleted (404), and in no active span (409 procedure_in_span); a deleted span frees them", async () => {
    const { p, a3, p4, a5, span: s } = await bridge();
    const more = await m.chart(p.id, "D6240", { tooth_number: "6" });
    const deleted = await m.chart(p.id, "D6240", { tooth_number: "7" });
    await req("DELETE", `${m.procById(deleted.id)}?base_version=1`);
    const others = await m.chart((await m.createPatient()).id, "D6240", { tooth_number: "6" });
    const foreign = await m.chart((await m.createPatient({}, m.otherOrg)).id, "D6240", { tooth_number: "6" }, m.otherOrg);
    for (const id of [deleted.id, others.id, foreign.id, MISSING]) {
      const r = await req("POST", spans(p.id), {
        members: [
          { procedure_uuid: more.id, role: "pontic" },
          { procedure_uuid: id, role: "abutment" },
        ],
      });
      expect([r.status, r.body.detail]).toEqual([404, "Charted procedure not found"]);
    }
    const taken = await req("POST", spans(p.id), {
      members: [
        { procedure_uuid: more.id, role: "pontic" },
        { procedure_uuid: a5.id, role: "abutment" },
      ],
    });
    expect([taken.status, taken.body.code]).toEqual([409, "procedure_in_span"]);
    expect((await req("GET", spans(p.id))).body.total).toBe(1);
    expect((await req("DELETE", `${span(p.id, s.id)}?base_version=1`)).status).toBe(204);
    const again = await req("POST", spans(p.id), {
      members: [
        { procedure_uuid: a3.id, role: "abutment" },
        { procedure_uuid: p4.id, role: "pontic" },
        { procedure_uuid: a5.id, role: "abutment" },
      ],
    });
    expect(again.status).toBe(201);
  });

  test("list: the patient's spans, status filter, paging; 422 for bad parameters; 404 missing patient", async () => {
    const { p, span: s } = await bridge();
    const x = await m.chart(p.id, "D6240", { tooth_number: "12" });
    const y = await m.chart(p.id, "D6750", { tooth_number: "13" });
    const second = (
      await req("POST", spans(p.id), {
        status: "completed",
        members: [
          { procedure_uuid: x.id, role: "pontic" },
          { procedure_uuid: y.id, role: "abutment" },
        ],
      })
    ).body;
    await bridge(); // another patient's
    expect((await req("GET", spans(p.id))).body).toMatchObject({ total: 2, page: 1, page_size: 50, items: [{ id: s.id }, { id: second.id }] });
    expect((await req("GET", `${spans(p.id)}?status=completed`)).body.items.map((i: any) => i.id)).toEqual([second.id]);
    expect((await req("GET", `${spans(p.id)}?page=2&page_size=1`)).body.items.map((i: any) => i.id)).toEqual([second.id]);
    for (const q of ["status=gone", "page=0", "page_size=500", "tooth=3"]) expect((await req("GET", `${spans(p.id)}?${q}`)).status).toBe(422);
    expect((await req("GET", spans(MISSING))).status).toBe(404);
  });

  test("get and members: 404 for another patient's span (through that patient's path), a missing and a deleted span", async () => {
    const { p, span: s } = await bridge();
    const other = await m.createPatient();
    for (const path of [span(other.id, s.id), `${span(other.id, s.id)}/members`, span(p.id, MISSING), `${span(p.id, MISSING)}/members`]) {
      const r = await req("GET", path);
      expect([path, r.status, r.body.detail]).toEqual([path, 404, "Span not found"]);
    }
    await req("DELETE", `${span(p.id, s.id)}?base_version=1`);
    expect((await req("GET", span(p.id, s.id))).status).toBe(404);
    expect((await req("GET", `${span(p.id, s.id)}/members`)).status).toBe(404);
  });

  test("PATCH note and status; 409 stale; 422 for bad values and read-only members; 404 through another patient; nothing changed when refused", async () => {
    const { p, span: s } = await bridge();
    const r = await req("PATCH", span(p.id, s.id), { base_version: 1, note: "delivered", status: "completed" });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ note: "delivered", status: "completed", version: 2, members: s.members });
    const ev = (await m.eventsOf(s.id)).at(-1)!;
    expect([ev.type, (ev.data.changed_fields as string[]).sort()]).toEqual(["procedure_span.updated", ["note", "status"]]);
    expect((await req("PATCH", span(p.id, s.id), { base_version: 1, note: "stale" })).status).toBe(409);
    for (const [body, loc, type] of [
      [{ base_version: 2, status: "open" }, "status", "enum"],
      [{ base_version: 2, members: [] }, "members", "read_only"],
      [{ note: "x" }, "base_version", "missing"],
      [{ base_version: 2, note: 5 }, "note", "type_error"],
    ] as const) {
      const bad = await req("PATCH", span(p.id, s.id), body);
      expect([bad.status, bad.body.detail[0].loc, bad.body.detail[0].type]).toEqual([422, ["body", loc], type]);
    }
    const other = await m.createPatient();
    expect((await req("PATCH", span(other.id, s.id), { base_version: 2, note: "x" })).status).toBe(404);
    expect(await m.rowOf("span", s.id)).toMatchObject({ note: "delivered", status: "completed", version: 2 });
  });

  test("DELETE: soft, 204; member rows and procedures stay; 409 stale; 404 again; audit", async () => {
    const { p, a3, span: s } = await bridge();
    expect((await req("DELETE", `${span(p.id, s.id)}?base_version=2`)).status).toBe(409);
    expect((await req("DELETE", span(p.id, s.id))).status).toBe(422);
    expect((await req("DELETE", `${span(p.id, s.id)}?base_version=1`)).status).toBe(204);
    expect((await m.rowOf("span", s.id)).deleted_at).toEqual(expect.any(String));
    expect(await m.spanMembers(s.id)).toHaveLength(3);
    expect((await req("GET", m.procById(a3.id))).status).toBe(200);
    expect((await req("DELETE", `${span(p.id, s.id)}?base_version=2`)).status).toBe(404);
    expect((await auditOf(m.t, m.orgId, s.id)).map((a) => a.action)).toEqual(["procedure_span.created", "procedure_span.deleted"]);
  });

  test("a procedure of an active span cannot be deleted on its own: 422 procedure_in_span", async () => {
    const { p4 } = await bridge();
    const r = await req("DELETE", `${m.procById(p4.id)}?base_version=1`);
    expect([r.status, r.body.code]).toEqual([422, "procedure_in_span"]);
    expect((await m.rowOf("procedure", p4.id)).deleted_at).toBeNull();
  });
});

describe("cascade delete", () => {
  test("exactly spec's outcome: span soft-deleted, member rows removed, unfinished procedures soft-deleted (and out of plans), completed ones kept", async () => {
    const { p, a3, p4, a5, span: s } = await bridge();
    const extra = await m.chart(p.id, "D6240", { tooth_number: "6", status: "referred" });
    const ref = await m.chart(p.id, "D6240", { tooth_number: "7", status: "referred" });
    const d3 = await m.setStatus(a3.id, "complete");
    await m.setStatus(p4.id, "in_progress");
    await m.setStatus(ref.id, "complete_referred");
    // a fresh span with the five (the first one deleted to free its members)
    await req("DELETE", `${span(p.id, s.id)}?base_version=1`);
    const five = (
      await req("POST", spans(p.id), { members: [a3, p4, a5, extra, ref].map((x, i) => ({ procedure_uuid: x.id, role: i === 1 ? "pontic" : "abutment" })) })
    ).body;
    const planR = await req("POST", `${m.P()}/patients/${p.id}/treatment-plans`, { name: "Bridge" });
    await req("POST", `${m.P()}/patients/${p.id}/treatment-plans/${planR.body.id}/procedures`, { procedure_uuid: a5.id });

    const r = await req("DELETE", `${span(p.id, five.id)}/cascade?base_version=1`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ span_uuid: five.id, deleted_procedure_uuids: [p4.id, a5.id, extra.id], preserved_procedure_uuids: [a3.id, ref.id] });
    expect((await m.rowOf("span", five.id)).deleted_at).toEqual(expect.any(String));
    expect(await m.spanMembers(five.id)).toEqual([]);
    for (const id of [p4.id, a5.id, extra.id]) expect((await m.rowOf("procedure", id)).deleted_at).toEqual(expect.any(String));
    const kept = await req("GET", m.procById(a3.id));
    expect(kept.body).toMatchObject({ status: "complete", deleted_at: null, version: d3.version });
    expect((await req("GET", m.procById(ref.id))).body).toMatchObject({ status: "complete_referred", deleted_at: null });
    expect(await m.planLinks(planR.body.id)).toEqual([]);
    expect((await req("GET", span(p.id, five.id))).status).toBe(404);
    // events: each deleted procedure, the plan, the span with the outcome
    const spanEv = (await m.eventsOf(five.id)).at(-1)!;
    expect(spanEv.type).toBe("procedure_span.deleted");
    expect(spanEv.data).toMatchObject({
      cascade: true,
      deleted_procedure_ids: [p4.id, a5.id, extra.id],
      preserved_procedure_ids: [a3.id, ref.id],
      patient_id: p.id,
    });
    expect((await m.eventsOf(a5.id)).at(-1)!.type).toBe("charted_procedure.deleted");
    expect((await m.eventsOf(planR.body.id)).at(-1)!.type).toBe("treatment_plan.procedure_removed");
    expect((await auditOf(m.t, m.orgId, p4.id)).map((a) => a.action).at(-1)).toBe("charted_procedure.deleted");
    // the kept procedures are standalone: they may join a new span
    const x = await m.chart(p.id, "D6240", { tooth_number: "4" });
    expect(
      (
        await req("POST", spans(p.id), {
          members: [
            { procedure_uuid: a3.id, role: "abutment" },
            { procedure_uuid: x.id, role: "pontic" },
          ],
        })
      ).status,
    ).toBe(201);
  });

  test("409 stale base_version, 422 without it, 404 missing / deleted / another patient's: nothing changed", async () => {
    const { p, p4, span: s } = await bridge();
    const other = await m.createPatient();
    expect((await req("DELETE", `${span(p.id, s.id)}/cascade?base_version=2`)).status).toBe(409);
    expect((await req("DELETE", `${span(p.id, s.id)}/cascade`)).status).toBe(422);
    expect((await req("DELETE", `${span(other.id, s.id)}/cascade?base_version=1`)).status).toBe(404);
    expect((await req("DELETE", `${span(p.id, MISSING)}/cascade?base_version=1`)).status).toBe(404);
    expect(await m.rowOf("span", s.id)).toMatchObject({ deleted_at: null, version: 1 });
    expect(await m.spanMembers(s.id)).toHaveLength(3);
    expect((await m.rowOf("procedure", p4.id)).deleted_at).toBeNull();
    await req("DELETE", `${span(p.id, s.id)}?base_version=1`);
    expect((await req("DELETE", `${span(p.id, s.id)}/cascade?base_version=2`)).status).toBe(404);
    expect((await m.rowOf("procedure", p4.id)).deleted_at).toBeNull();
  });
});

describe("span access", () => {
  test("401, 403, 404 outsider, and another org's ids through this org's path on every route; nothing changed", async () => {
    const readerOnly = (await createMember(m.t, m.orgId, [READ])).token;
    const noClinical = (await createMember(m.t, m.orgId, ["patients.read", "patients.write"])).token;
    const outsider = (await createMember(m.t, m.otherOrg, [READ, WRITE])).token;
    const routesOf = async (org: string) => {
      const { p, span: s } = await bridge(org);
      const x = await m.chart(p.id, "D6240", { tooth_number: "12" }, org);
      const y = await m.chart(p.id, "D6750", { tooth_number: "13" }, org);
      const base = span(p.id, s.id, org);
      return {
        spanId: s.id,
        reads: [
          ["GET", spans(p.id, org)],
          ["GET", base],
          ["GET", `${base}/members`],
        ] as [string, string, unknown?][],
        writes: [
          [
            "POST",
            spans(p.id, org),
            {
              members: [
                { procedure_uuid: x.id, role: "pontic" },
                { procedure_uuid: y.id, role: "abutment" },
              ],
            },
          ],
          ["PATCH", base, { base_version: 1, note: "x" }],
          ["DELETE", `${base}?base_version=1`],
          ["DELETE", `${base}/cascade?base_version=1`],
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
    expect(await m.rowOf("span", mine.spanId)).toMatchObject({ version: 1, note: "3-unit PFM bridge", deleted_at: null });
    expect(await m.spanMembers(mine.spanId)).toHaveLength(3);

    const foreign = await routesOf(m.otherOrg);
    const swap = (path: string) => path.replace(`/api/v1/${m.otherOrg}/`, `/api/v1/${m.orgId}/`);
    for (const [method, path, body] of [...foreign.reads, ...foreign.writes]) {
      expect([method, path, (await m.t.request(method, swap(path), { token: m.token, body })).status]).toEqual([method, path, 404]);
    }
    expect(await m.rowOf("span", foreign.spanId, m.otherOrg)).toMatchObject({ version: 1, deleted_at: null });
    expect(await m.spanMembers(foreign.spanId, m.otherOrg)).toHaveLength(3);
  });
});
