import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { renderPdfPage } from "@/domains/documents/processing/pdf";
import { NO_ESTIMATE, SIGNATURE_STATEMENT, STALE_WARNING } from "@/domains/insurance/presentations/render";
import { auditOf, expectGuarded } from "@tests/helpers";
import { coveredPatient, MISSING, SETUP_TIMEOUT_MS } from "@tests/domains/insurance/estimates/fixtures";
import {
  addProcedure,
  documentFile,
  estimate,
  estimatesOf,
  getDocument,
  getPdf,
  getPlan,
  listOf,
  movePlan,
  patientDocuments,
  pdfTextOf,
  plannedRedPixels,
  present,
  presentationWorld,
  printed,
  setChartNumber,
  setFee,
  sha256,
  sign,
  signaturesOf,
  textOf,
  type World,
} from "./fixtures";

// The treatment-plan presentation endpoints over HTTP (docs/clinical/chart-pictures.md,
// "Presentations"): the PDF as the plan and its estimates are now, presenting it
// for signature, and signing it (through the document signature endpoints),
// which accepts the plan and freezes what was signed.

const SLOW = 30_000;
const TWO_PROCEDURES: [string, number, string][] = [
  ["D2740", 1300, "3"],
  ["D2150", 250, "14/MO"],
];
const flat = (text: string) => text.replace(/\s+/g, " ");
const cents = (amount: string) => Math.round(Number(amount) * 100);
const dollarsOf = (c: number) => (c / 100).toFixed(2);

let w: World;
/** A patient, plan and procedure of org B (another org's ids). */
let foreign: { patient: string; plan: string; P: string };

beforeAll(async () => {
  w = await presentationWorld();
  const b = await w.t.request("POST", `${w.pathB}/patients`, { token: w.admin, body: { first_name: "Other", last_name: "Org" } });
  const plan = await w.t.request("POST", `${w.pathB}/clinical/patients/${b.body.id}/treatment-plans`, { token: w.admin, body: { name: "Theirs" } });
  foreign = { patient: b.body.id, plan: plan.body.id, P: `${w.pathB}/clinical/patients/${b.body.id}/treatment-plans/${plan.body.id}` };
}, SETUP_TIMEOUT_MS);
afterAll(() => w.t.close());

const patientWith = (opts: Parameters<typeof coveredPatient>[3] = {}) => coveredPatient(w.t, w.admin, w.office, { procedures: TWO_PROCEDURES, ...opts });
const planPathOf = (patient: string, plan: string) => `${w.pathA}/clinical/patients/${patient}/treatment-plans/${plan}`;

describe("GET .../presentation.pdf", () => {
  test(
    "a covered patient's plan: the practice, patient, codes, fees, each insurance's estimate from GET .../estimates, totals, the signature; the chart drawn in red; inline, audited",
    async () => {
      const p = await patientWith();
      await setChartNumber(w, p.patient, "ML-1001");
      await estimate(w, p.P);
      const est = (await estimatesOf(w, p.P)).items as any[];
      const of = (proc: number, ordinal: number) => est.find((e) => e.charted_procedure_uuid === p.procedures[proc] && e.ordinal === ordinal)!;
      // each line: its fee, each insurance's estimate, and what the patient pays after the last plan (the estimates' patient_estimate)
      const FEES = [130_000, 25_000];
      // and the PPO write-off between them, so that the row adds up: fee = insurances + write-off + patient
      const lines = [0, 1].map((i) => {
        const [a, b, patient] = [of(i, 1).effective_insurance_estimate, of(i, 2).effective_insurance_estimate, of(i, 2).patient_estimate] as string[];
        return [a, b, dollarsOf(FEES[i]! - cents(a!) - cents(b!) - cents(patient!)), patient] as string[];
      });
      // the worked example's crown: 450.00 from Delta Dental, 400.00 from Cigna, 400.00 written off, 50.00 for the patient
      expect(lines[0]).toEqual(["450.00", "400.00", "400.00", "50.00"]);
      expect(est.every((e) => e.is_stale === false)).toBe(true);

      const pdf = await getPdf(w, p.P, w.tokens.reader);
      expect(pdf.status).toBe(200);
      expect(pdf.headers.get("content-type")).toBe("application/pdf");
      expect(pdf.headers.get("content-disposition")).toBe('inline; filename="treatment-plan-ML-1001.pdf"');
      expect(pdf.headers.get("cache-control")).toBe("private, no-store");
      expect(new TextDecoder().decode(pdf.bytes.slice(0, 5))).toBe("%PDF-");

      const text = await textOf(pdf.bytes);
      for (const s of [w.orgName, "TREATMENT PLAN", "Maria Lopez", "Date of birth: Apr 12, 1985", "Chart no.: ML-1001", "Plan: Restorative phase"])
        expect(text).toContain(s);
      // the insurance names head their columns on two lines ("Primary:" over "Delta Dental")
      for (const s of ["D2740", "D2150", "$1,300.00", "$250.00", "$1,550.00", "Primary:", "Delta Dental", "Secondary:", "Cigna"]) expect(text).toContain(s);
      // the extracted text keeps the table's rows: the amounts in column order
      expect(text).toContain(`D2740 3 `);
      expect(text).toContain(["$1,300.00", ...lines[0]!.map(printed)].join(" "));
      expect(text).toContain(`D2150 14 MO `);
      expect(text).toContain(["$250.00", ...lines[1]!.map(printed)].join(" "));
      const total = (col: number) => printed(dollarsOf(cents(lines[0]![col]!) + cents(lines[1]![col]!)));
      expect(text).toContain(`Total $1,550.00 ${total(0)} ${total(1)} ${total(2)} ${total(3)}`);
      expect(text).toContain("Write-off");
      expect(text).toContain(SIGNATURE_STATEMENT);
      expect(text).not.toContain(flat(STALE_WARNING));
      expect(text).not.toContain(NO_ESTIMATE);

      // the first page as an image: a PNG whose chart shows the planned procedures in red, far more
      // than an empty plan's chart, where only the legend's "Planned" swatch is red
      const png = await renderPdfPage(pdf.bytes, 1);
      expect([...png.slice(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
      const empty = await getPdf(w, (await patientWith({ procedures: [] })).P);
      const legendOnly = await plannedRedPixels(await renderPdfPage(empty.bytes, 1));
      expect(legendOnly).toBeGreaterThan(0);
      expect(await plannedRedPixels(png)).toBeGreaterThan(5 * legendOnly);

      const printedAudit = (await auditOf(w.t, w.orgA, p.plan)).filter((a) => a.action === "treatment_plan.presentation_printed");
      expect(printedAudit).toHaveLength(1);
      expect(printedAudit[0]).toMatchObject({ resource_type: "treatment_plan", after: { patient_id: p.patient, procedure_count: 2, fee_cents: 155000 } });
    },
    SLOW,
  );

  test(
    "after a fee change the PDF warns the estimates may be out of date; presenting recomputes them first",
    async () => {
      const p = await patientWith();
      await estimate(w, p.P);
      await setFee(w, p.procedures[0]!, 1400);
      expect((await estimatesOf(w, p.P)).items.some((e: any) => e.is_stale)).toBe(true);
      const stale = await pdfTextOf(w, p.P);
      expect(stale).toContain(flat(STALE_WARNING));
      expect(stale).toContain("$1,400.00");

      const presented = await present(w, p.P);
      expect(presented).toMatchObject({ estimate_state: "current", total_fee: "1650.00" });
      const after = (await estimatesOf(w, p.P)).items as any[];
      expect(after.map((e) => e.is_stale)).toEqual([false, false, false, false]);
      const byColumn = [1, 2].map((o) => after.filter((e) => e.ordinal === o).reduce((sum, e) => sum + cents(e.effective_insurance_estimate), 0));
      expect(presented.insurance_estimates).toEqual(byColumn.map(dollarsOf));
      // the stored PDF is drawn from the fresh estimates
      const stored = await textOf(await documentFile(w, presented.document_uuid));
      expect(stored).not.toContain(flat(STALE_WARNING));
      expect(stored).toContain("$1,400.00");
    },
    SLOW,
  );

  test(
    "no insurance: the no-estimate line, no insurance columns, and the patient portion is the fee",
    async () => {
      const p = await coveredPatient(w.t, w.admin, w.office, { primary: false });
      const text = await pdfTextOf(w, p.P);
      expect(text).toContain(NO_ESTIMATE);
      expect(text).not.toContain("Primary:");
      // the line's fee and patient portion, the totals' fee and patient portion
      expect(text.split("$1,300.00").length - 1).toBe(4);
      const presented = await present(w, p.P);
      expect(presented).toMatchObject({ total_fee: "1300.00", insurance_estimates: [], patient_portion: "1300.00", estimate_state: "none" });
    },
    SLOW,
  );

  test(
    "an empty plan renders with its note and zero totals",
    async () => {
      const p = await coveredPatient(w.t, w.admin, w.office, { procedures: [] });
      const pdf = await getPdf(w, p.P);
      expect(pdf.status).toBe(200);
      const text = await textOf(pdf.bytes);
      expect(text).toContain("This treatment plan has no procedures.");
      expect(text).toContain("Total $0.00 $0.00");
      expect(text).toContain(SIGNATURE_STATEMENT);
    },
    SLOW,
  );

  test(
    "401/403/404 from the guard; 404 for an unknown patient or plan, another patient's plan, another org's plan",
    async () => {
      const p = await patientWith();
      const q = await patientWith({ procedures: [] });
      const reader = await expectGuarded(w.t, w.orgA, w.orgB, "GET", `${p.P}/presentation.pdf`, "clinical.read");
      expect((await getPdf(w, p.P, reader)).status).toBe(200);
      for (const path of [
        planPathOf(MISSING, p.plan),
        planPathOf(p.patient, MISSING),
        planPathOf(p.patient, q.plan),
        planPathOf(foreign.patient, foreign.plan),
      ]) {
        const r = await w.t.request("GET", `${path}/presentation.pdf`, { token: w.admin });
        expect([path, r.status, r.body.code]).toEqual([path, 404, "not_found"]);
      }
      // the other org's own path answers it there, never here
      expect((await getPdf(w, foreign.P)).status).toBe(200);
    },
    SLOW,
  );
});

describe("POST and GET .../presentations", () => {
  test(
    "201: the figures presented, the stored PDF (its sha256), a pending signature for the patient; the plan becomes proposed; listed; audited",
    async () => {
      const p = await patientWith();
      await estimate(w, p.P);
      const est = (await estimatesOf(w, p.P)).items as any[];
      const before = await getPlan(w, p.P);
      expect(before.status).toBe("draft");

      const r = await present(w, p.P);
      const insurance = [1, 2].map((o) => est.filter((e) => e.ordinal === o).reduce((sum, e) => sum + cents(e.effective_insurance_estimate), 0));
      // what the patient pays: each procedure's last plan's patient_estimate (after the PPO write-offs)
      const patientCents = est.filter((e) => e.ordinal === 2).reduce((sum, e) => sum + cents(e.patient_estimate), 0);
      expect(r).toEqual({
        id: expect.any(String),
        treatment_plan_uuid: p.plan,
        patient_uuid: p.patient,
        document_uuid: expect.any(String),
        signature_uuid: expect.any(String),
        status: "awaiting_signature",
        signed_at: null,
        procedure_count: 2,
        total_fee: "1550.00",
        insurance_estimates: insurance.map(dollarsOf),
        // the rest of the fee is the PPO write-off
        write_off: dollarsOf(155_000 - insurance[0]! - insurance[1]! - patientCents),
        patient_portion: dollarsOf(patientCents),
        estimate_state: "current",
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        page_count: 1,
        presented_by: w.members.presenter.userId,
        version: 1,
        created_at: expect.stringMatching(/Z$/),
      });

      const bytes = await documentFile(w, r.document_uuid);
      expect(sha256(bytes)).toBe(r.sha256);
      const text = await textOf(bytes);
      for (const s of ["Maria Lopez", "D2740", "D2150", "$1,550.00", "Delta Dental", "Cigna", SIGNATURE_STATEMENT]) expect(text).toContain(s);

      expect(await getDocument(w, r.document_uuid)).toMatchObject({
        id: r.document_uuid,
        document_type: "treatment_plan_unsigned",
        owner_type: "patient",
        owner_uuid: p.patient,
        mime_type: "application/pdf",
        is_signed: false,
        is_locked: false,
        status: "active",
      });
      const sigs = (await signaturesOf(w, r.document_uuid)).items;
      expect(sigs).toHaveLength(1);
      expect(sigs[0]).toMatchObject({
        id: r.signature_uuid,
        status: "pending",
        signer_name: "Maria Lopez",
        signer_role: "patient",
        signer_patient_uuid: p.patient,
      });

      const plan = await getPlan(w, p.P);
      expect([plan.status, plan.version]).toEqual(["proposed", before.version + 1]);
      expect(await listOf(w, p.P)).toEqual({ items: [r], total: 1 });
      expect((await auditOf(w.t, w.orgA, r.id)).map((a) => a.action)).toEqual(["treatment_plan_presentation.created"]);
      expect((await auditOf(w.t, w.orgA, r.document_uuid)).map((a) => a.action)).toContain("document.created");

      // presented again: a second document, listed first; a proposed plan stays proposed
      const again = await present(w, p.P, { signer_name: "Ana Lopez", signer_role: "guardian", signer_email: "ana@example.com" });
      expect(again.document_uuid).not.toBe(r.document_uuid);
      expect((await signaturesOf(w, again.document_uuid)).items[0]).toMatchObject({
        signer_name: "Ana Lopez",
        signer_role: "guardian",
        signer_email: "ana@example.com",
        signer_patient_uuid: null, // a guardian signs for the patient and is not the patient
      });
      expect((await listOf(w, p.P)).items.map((x: any) => x.id)).toEqual([again.id, r.id]);
      expect((await getPlan(w, p.P)).status).toBe("proposed");
      expect((await patientDocuments(w, p.patient)).total).toBe(2);
    },
    SLOW,
  );

  test(
    "signing accepts the plan and signs the document; a later fee change leaves the signed PDF and the figures as they were, while a fresh print shows the new fee",
    async () => {
      const p = await patientWith();
      await estimate(w, p.P);
      const r = await present(w, p.P);
      const signed = await sign(w, r);
      expect(signed.status).toBe(200);
      expect(signed.body).toMatchObject({ status: "signed", signature_text: "Maria Lopez", signed_sha256: r.sha256 });

      expect((await getPlan(w, p.P)).status).toBe("accepted");
      expect(await getDocument(w, r.document_uuid)).toMatchObject({ document_type: "treatment_plan_signed", is_signed: true, is_locked: true });
      const list = await listOf(w, p.P);
      expect(list.items).toEqual([{ ...r, status: "signed", signed_at: signed.body.signed_at, version: 2 }]);
      expect((await auditOf(w.t, w.orgA, r.id)).map((a) => a.action)).toEqual(["treatment_plan_presentation.created", "treatment_plan_presentation.signed"]);

      await setFee(w, p.procedures[0]!, 1500);
      expect(sha256(await documentFile(w, r.document_uuid))).toBe(r.sha256);
      expect(await listOf(w, p.P)).toEqual(list);
      expect(await getDocument(w, r.document_uuid)).toMatchObject({ document_type: "treatment_plan_signed", is_signed: true, version: expect.any(Number) });
      const fresh = await pdfTextOf(w, p.P);
      expect(fresh).toContain("$1,500.00");
      expect(fresh).toContain("$1,750.00");
      expect(fresh).not.toContain("$1,300.00");
      expect((await getPlan(w, p.P)).status).toBe("accepted");
    },
    SLOW,
  );

  test(
    "a plan changed after it was presented refuses the signature: 422 presentation_outdated, and nothing changes",
    async () => {
      const p = await patientWith();
      const r = await present(w, p.P);
      await addProcedure(w, p.patient, p.P, "D7140", 200, "30");
      const plan = await getPlan(w, p.P);
      const doc = await getDocument(w, r.document_uuid);
      const sigs = await signaturesOf(w, r.document_uuid);
      const list = await listOf(w, p.P);

      const refused = await sign(w, r);
      expect(refused.status).toBe(422);
      expect(refused.body.code).toBe("presentation_outdated");
      expect(await signaturesOf(w, r.document_uuid)).toEqual(sigs);
      expect(sigs.items[0].status).toBe("pending");
      expect(await getPlan(w, p.P)).toEqual(plan);
      expect(plan.status).toBe("proposed");
      expect(await getDocument(w, r.document_uuid)).toEqual(doc);
      expect(doc).toMatchObject({ document_type: "treatment_plan_unsigned", is_signed: false, is_locked: false });
      expect(await listOf(w, p.P)).toEqual(list);
      expect((await auditOf(w.t, w.orgA, r.id)).map((a) => a.action)).toEqual(["treatment_plan_presentation.created"]);

      // presented again, the new one signs
      const again = await present(w, p.P);
      expect(again.procedure_count).toBe(3);
      // the plan was never estimated: presenting computed every estimate, the new procedure's too
      expect([r.estimate_state, r.total_fee, again.estimate_state, again.total_fee]).toEqual(["current", "1550.00", "current", "1750.00"]);
      expect(Number(again.insurance_estimates[0])).toBeGreaterThan(Number(r.insurance_estimates[0]));
      expect((await sign(w, again)).status).toBe(200);
      expect((await getPlan(w, p.P)).status).toBe("accepted");
    },
    SLOW,
  );

  test(
    "422 plan_not_presentable for a rejected plan, patient_archived, an unknown field; nothing stored",
    async () => {
      const p = await patientWith();
      await movePlan(w, p.P, "proposed");
      const rejected = await movePlan(w, p.P, "rejected");
      const post = (path: string, body?: unknown) => w.t.request("POST", `${path}/presentations`, { token: w.tokens.presenter, body });

      const r = await post(p.P);
      expect([r.status, r.body.code]).toEqual([422, "plan_not_presentable"]);
      expect(await getPlan(w, p.P)).toEqual(rejected);
      expect((await patientDocuments(w, p.patient)).total).toBe(0);
      expect(await listOf(w, p.P)).toEqual({ items: [], total: 0 });

      const q = await patientWith();
      const unknown = await post(q.P, { signer_name: "Maria Lopez", colour: "blue" });
      expect(unknown.status).toBe(422);
      expect(unknown.body.detail[0].loc).toEqual(["body", "colour"]);
      const badRole = await post(q.P, { signer_role: "provider" });
      expect(badRole.status).toBe(422);
      const archive = await w.t.request("POST", `${w.pathA}/patients/${q.patient}/archive`, { token: w.admin });
      expect(archive.status).toBe(200);
      const archived = await post(q.P);
      expect([archived.status, archived.body.code]).toEqual([422, "patient_archived"]);
      expect((await patientDocuments(w, q.patient)).total).toBe(0);
      expect((await getPlan(w, q.P)).status).toBe("draft");
      expect(await listOf(w, q.P)).toEqual({ items: [], total: 0 });
    },
    SLOW,
  );

  test(
    "404 for an unknown patient or plan, another patient's plan, another org's plan (POST and GET); the guard's 401/403/404",
    async () => {
      const p = await patientWith();
      const q = await patientWith({ procedures: [] });
      const paths = [planPathOf(MISSING, p.plan), planPathOf(p.patient, MISSING), planPathOf(p.patient, q.plan), planPathOf(foreign.patient, foreign.plan)];
      for (const path of paths) {
        const created = await w.t.request("POST", `${path}/presentations`, { token: w.admin });
        const listed = await w.t.request("GET", `${path}/presentations`, { token: w.admin });
        expect([path, created.status, created.body.code, listed.status, listed.body.code]).toEqual([path, 404, "not_found", 404, "not_found"]);
      }
      expect((await patientDocuments(w, p.patient)).total).toBe(0);
      expect((await getPlan(w, p.P)).status).toBe("draft");

      const lister = await expectGuarded(w.t, w.orgA, w.orgB, "GET", `${p.P}/presentations`, "clinical.read");
      expect((await w.t.request("GET", `${p.P}/presentations`, { token: lister })).body).toEqual({ items: [], total: 0 });
      await expectGuarded(w.t, w.orgA, w.orgB, "POST", `${p.P}/presentations`, "documents.sign");
      expect((await patientDocuments(w, p.patient)).total).toBe(0);
    },
    SLOW,
  );

  test(
    "403 for a member with only clinical.read; nothing stored",
    async () => {
      const p = await patientWith();
      const r = await w.t.request("POST", `${p.P}/presentations`, { token: w.tokens.reader });
      expect([r.status, r.body.code]).toEqual([403, "forbidden"]);
      expect((await patientDocuments(w, p.patient)).total).toBe(0);
      expect((await getPlan(w, p.P)).status).toBe("draft");
      expect(await listOf(w, p.P)).toEqual({ items: [], total: 0 });
    },
    SLOW,
  );
});
