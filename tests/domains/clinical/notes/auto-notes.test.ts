import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, busDrained, startTestApp, type TestApp } from "@tests/helpers";
import { applyAutoNoteRules, autoNoteForCompletedProcedure, codeMatches } from "@/domains/clinical/notes/auto-notes";
import { asJob, newLocation, newPatient, newProcedure, newProvider, snapshot } from "./fixtures";

// Auto-notes are written inside the transaction that completes a procedure (or
// an appointment, an exam): these tests run that unit of work as a job would.

let t: TestApp;
let admin: string;
beforeAll(async () => {
  t = await startTestApp();
  admin = await t.adminToken();
});
afterAll(() => t.close());

/** A fresh org with a location, a provider and a patient, and helpers bound to it. */
async function world() {
  const org = (await t.createOrg()).id;
  const location = await newLocation(t, org, "Main Street");
  const provider = await newProvider(t, org, { first_name: "Ada", last_name: "Molar" });
  const patient = await newPatient(t, org, { first_name: "Cora", last_name: "Crown", location_uuid: location });
  const P = `/api/v1/${org}/clinical-notes`;
  const post = async (path: string, body: Record<string, unknown>) => {
    const r = await t.request("POST", `${P}${path}`, { token: admin, body });
    if (r.status !== 201) throw new Error(`${path}: ${r.status} ${r.text}`);
    return r.body;
  };
  const rule = (body: Record<string, unknown>) => post("/auto-rules", { name: `R${Math.random()}`, trigger_event: "procedure_completed", ...body });
  const complete = async (code: string, extra: Partial<Parameters<typeof newProcedure>[2]> = {}) => {
    const proc = await newProcedure(t, org, {
      patient_id: patient.id,
      code,
      provider_id: provider.id,
      location_id: location,
      date_service: "2026-03-09",
      ...extra,
    });
    const note = await asJob(t, org, (s) => autoNoteForCompletedProcedure(s, proc.id));
    return { proc, note: note ? (await t.request("GET", `${P}/clinical-notes/${note.id}`, { token: admin })).body : null };
  };
  return { org, location, provider, patient, P, post, rule, complete };
}

describe("codeMatches", () => {
  test.each([
    ["D27*", "D2740", true],
    ["d27*", "D2750", true],
    ["D27*", "D2391", false],
    ["D2?91", "D2391", true],
    ["D2?91", "D23911", false],
    ["D2740", "D2740", true],
    ["*", "D0150", true],
    ["D1.1", "D1X1", false],
    ["D1.1", "D1.1", true],
  ])("%s against %s -> %s", (pattern, code, expected) => {
    expect(codeMatches(pattern, code)).toBe(expected);
  });
});

describe("applyAutoNoteRules", () => {
  test("no rule: no note", async () => {
    const w = await world();
    const { note } = await w.complete("D2391");
    expect(note).toBeNull();
    expect((await snapshot(t, w.org)).notes).toEqual([]);
  });

  test("a matching rule writes a draft note from its template; placeholders filled; audited as the job; ids-only event", async () => {
    const w = await world();
    const tpl = await w.post("/templates", {
      name: "Crown",
      body: "Seated {{procedure_code}} ({{procedure_description}}) on {{tooth}} {{surfaces}} for {{patient_first_name}}; {{provider_name}}, {{visit_date}}.",
    });
    const rule = await w.rule({ name: "Crowns", procedure_code_pattern: "D27*", procedure_category: "restorative", template_uuid: tpl.id });
    const events: string[] = [];
    t.rt.events.subscribe(w.org, (e) => events.push(JSON.stringify(e)));
    const { proc, note } = await w.complete("D2740", { tooth_number: "14" });
    expect(note).toMatchObject({
      patient: { uuid: w.patient.id, name: "Cora Crown" },
      provider: { uuid: w.provider.id, name: "Ada Molar" },
      procedures: [{ uuid: proc.id, name: "D2740 #14" }],
      note_type: "procedure",
      visit_date: "2026-03-09",
      status: "draft",
      content: "Seated D2740 (All-ceramic crown, such as zirconia or lithium disilicate.) on #14 for Cora; Ada Molar, 2026-03-09.",
      content_edited: false,
      author: null,
      auto_rule: { uuid: rule.id, name: "Crowns" },
    });
    expect((await auditOf(t, w.org, note.id))[0]).toMatchObject({ action: "clinical_note.created", actor_type: "system", actor_id: "system:auto_notes" });
    await busDrained(t.rt.bus); // also checks no event carries the text: all must have arrived
    const created = events.map((e) => JSON.parse(e)).find((e) => e.type === "clinical_note.created");
    expect(created.data).toEqual({ id: note.id, patient_id: w.patient.id });
    expect(events.join()).not.toContain("Seated");
  });

  test("without a template: a one-line default text", async () => {
    const w = await world();
    await w.rule({ name: "Any" });
    const { note } = await w.complete("D2391", { tooth_number: "3", surfaces: "MO" });
    expect(note.content).toBe("D2391 Tooth-coloured resin filling on one surface of a back tooth. #3 MO completed.");
  });

  test("the highest-priority matching active rule wins (then name); filters on category, pattern, location, provider", async () => {
    const w = await world();
    const other = await newProvider(t, w.org, { first_name: "Bo", last_name: "Other", abbreviation: "BO" });
    const text = async (body: string) => (await w.post("/templates", { name: body, body })).id;
    await w.rule({ name: "inactive", priority: 100, is_active: false, template_uuid: await text("inactive") });
    await w.rule({ name: "other provider", priority: 90, provider_uuid: other.id, template_uuid: await text("other provider") });
    await w.rule({ name: "diagnostic only", priority: 80, procedure_category: "diagnostic", template_uuid: await text("diagnostic only") });
    await w.rule({ name: "D27 only", priority: 70, procedure_code_pattern: "D27*", template_uuid: await text("D27 only") });
    await w.rule({ name: "b here", priority: 50, location_uuid: w.location, template_uuid: await text("b here") });
    await w.rule({ name: "a here", priority: 50, location_uuid: w.location, template_uuid: await text("a here") });
    await w.rule({ name: "exam rule", priority: 99, trigger_event: "exam_completed", template_uuid: await text("exam rule") });
    expect((await w.complete("D2391")).note.content).toBe("a here");
    expect((await w.complete("D2750")).note.content).toBe("D27 only");
    expect((await w.complete("D0150")).note.content).toBe("diagnostic only");
  });

  test("merge strategies into the visit's newest draft: append, prepend, replace (append once a person edited it); signed notes never touched", async () => {
    const w = await world();
    const visitNote = await w.post("/clinical-notes", { patient_uuid: w.patient.id, content: "Chief complaint: pain UR.", visit_date: "2026-03-09" });
    const rule = await w.rule({
      name: "merge",
      merge_strategy: "append",
      template_uuid: (await w.post("/templates", { name: "t", body: "Done {{procedure_code}}." })).id,
    });
    const a = await w.complete("D2391");
    expect(a.note).toMatchObject({
      id: visitNote.id,
      version: 2,
      content: "Chief complaint: pain UR.\n\nDone D2391.",
      content_edited: false,
      procedures: [{ uuid: a.proc.id }],
    });
    await t.request("PATCH", `${w.P}/auto-rules/${rule.id}`, { token: admin, body: { base_version: 1, merge_strategy: "prepend" } });
    const b = await w.complete("D2392");
    expect(b.note).toMatchObject({
      id: visitNote.id,
      content: "Done D2392.\n\nChief complaint: pain UR.\n\nDone D2391.",
      procedures: [{ uuid: a.proc.id }, { uuid: b.proc.id }],
    });
    await t.request("PATCH", `${w.P}/auto-rules/${rule.id}`, { token: admin, body: { base_version: 2, merge_strategy: "replace" } });
    const c = await w.complete("D2393");
    expect(c.note).toMatchObject({ id: visitNote.id, content: "Done D2393." });
    const edited = await t.request("PATCH", `${w.P}/clinical-notes/${visitNote.id}`, {
      token: admin,
      body: { base_version: c.note.version, content: "Clinician wrote this." },
    });
    expect(edited.body.content_edited).toBe(true);
    const d = await w.complete("D2394");
    expect(d.note).toMatchObject({ id: visitNote.id, content: "Clinician wrote this.\n\nDone D2394." });
    const signed = await t.request("POST", `${w.P}/clinical-notes/${visitNote.id}/sign`, { token: admin, body: { base_version: d.note.version } });
    expect(signed.status).toBe(200);
    const e = await w.complete("D2740");
    expect(e.note.id).not.toBe(visitNote.id);
    expect(e.note).toMatchObject({ content: "Done D2740.", status: "draft", visit_date: "2026-03-09" });
    expect((await t.request("GET", `${w.P}/clinical-notes/${visitNote.id}`, { token: admin })).body.content).toBe("Clinician wrote this.\n\nDone D2394.");
    const other = await w.complete("D2391", { date_service: "2026-03-10" });
    expect(other.note.id).not.toBe(e.note.id); // another visit date: another note
  });

  test("separate_note always writes a new note; appointment and exam triggers; note types follow the trigger", async () => {
    const w = await world();
    await w.rule({ name: "sep", merge_strategy: "separate_note" });
    const first = await w.complete("D2391");
    const second = await w.complete("D2391");
    expect(second.note.id).not.toBe(first.note.id);
    await w.rule({ name: "visit", trigger_event: "appointment_completed", merge_strategy: "append" });
    await w.rule({ name: "exam", trigger_event: "exam_completed", merge_strategy: "separate_note" });
    const visit = await asJob(t, w.org, (s) =>
      applyAutoNoteRules(s, { trigger_event: "appointment_completed", patient_id: w.patient.id, visit_date: "2026-04-01" }),
    );
    expect(visit).toMatchObject({ note_type: "progress", content: "Appointment completed on 2026-04-01.", visit_date: "2026-04-01" });
    const exam = await asJob(t, w.org, (s) => applyAutoNoteRules(s, { trigger_event: "exam_completed", patient_id: w.patient.id, visit_date: "2026-04-01" }));
    expect(exam).toMatchObject({ note_type: "exam", content: "Exam completed on 2026-04-01." });
    const again = await asJob(t, w.org, (s) =>
      applyAutoNoteRules(s, { trigger_event: "appointment_completed", patient_id: w.patient.id, visit_date: "2026-04-01" }),
    );
    expect(again!.id).toBe(exam!.id); // append goes to the visit's newest draft
    expect(again!.content).toBe("Exam completed on 2026-04-01.\n\nAppointment completed on 2026-04-01.");
  });
});
