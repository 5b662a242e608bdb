import { beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { extractText, getDocumentProxy } from "unpdf";
import { auditEntries } from "@db/tenant/audit";
import { all } from "@/platform/db/work";
import { claimsWorld, MISSING, type ClaimsWorld } from "./fixtures";

// The printable claim over HTTP (docs/insurance/claims.md, "The printable
// claim"): GET .../claims/{id}/form.pdf gathers the form's fields from the
// claim and the records it names, answers the PDF inline, and audits the
// print; the text is read back out of the PDF with unpdf.

let w: ClaimsWorld;
/** A patient with a crown on 3 and a two-surface filling on 30, tooth 1 charted missing, and their primary claim. */
let p: Awaited<ReturnType<ClaimsWorld["patientWith"]>>;
let claim: any;

type Pdf = { status: number; headers: Headers; bytes: Uint8Array; text: string };

/** The form as `token` gets it (raw bytes: the test client's text() would mangle a PDF), and its text. */
async function form(claimId: string, token = w.token, path = w.A): Promise<Pdf> {
  const res = await w.t.handle(new Request(`http://localhost${path}/insurance/claims/${claimId}/form.pdf`, { headers: { authorization: `Bearer ${token}` } }));
  const bytes = new Uint8Array(await res.arrayBuffer());
  let text = "";
  if (res.status === 200) {
    const pdf = await getDocumentProxy(new Uint8Array(bytes));
    text = (await extractText(pdf, { mergePages: true })).text;
  } else text = new TextDecoder().decode(bytes);
  return { status: res.status, headers: res.headers, bytes, text };
}

/** org A's audit entries of a print of `claimId`, from the org's own trail. */
async function printsOf(claimId: string) {
  const db = await w.db();
  const rows = await db.read((d) => all<typeof auditEntries.$inferSelect>(d.select().from(auditEntries).where(eq(auditEntries.resource_id, claimId))));
  return rows.filter((r) => r.action === "claim.form_printed");
}

beforeAll(async () => {
  w = await claimsWorld();
  // what the billing boxes print: the plan's group, the dentist's suffix, TIN, taxonomy and licence here, the office's phone
  const plan = await w.ok(w.get(`/insurance/plans/${w.office.planA}`), 200);
  await w.ok(w.patch(`/insurance/plans/${w.office.planA}`, { base_version: plan.version, group_number: "GRP-4410", group_name: "Acme Tools" }), 200);
  await w.ok(
    w.patch(`/providers/${w.dentist.id}`, { base_version: w.dentist.version, suffix: "DDS", ssn_tin: "36-1234567", taxonomy_code_override: "1223G0001X" }),
    200,
  );
  await w.ok(w.post(`/providers/${w.dentist.id}/location-overrides`, { location_uuid: w.location.id, state_license: "OR-19-4521" }));
  await w.ok(w.patch(`/locations/${w.location.id}`, { base_version: w.location.version, phone: "503-555-0134" }), 200);
  p = await w.patientWith([
    ["D2740", 1300, "3"],
    ["D2150", 200, "30/MO"],
  ]);
  const patient = await w.ok(w.get(`/patients/${p.patient}`), 200);
  await w.ok(w.patch(`/patients/${p.patient}`, { base_version: patient.version, chart_number: "PAT-000042" }), 200);
  await w.ok(
    w.t.request("PUT", `${w.A}/clinical/patients/${p.patient}/tooth-statuses`, { token: w.token, body: { tooth_number: "1", status: "missing" } }),
    200,
  );
  claim = await w.claimFor(p, { note: "Crown and filling" });
}, 90_000);

describe("GET /insurance/claims/{claim_uuid}/form.pdf", () => {
  test("a primary claim: the claim, payer, patient, subscriber, lines, total, chart and dentist are on the form", async () => {
    const r = await form(claim.id);
    expect(r.status).toBe(200);
    const memberId = `W1${p.patient.slice(-6)}`;
    for (const value of [
      `Claim ${claim.claim_number}`,
      "Dental Claim: Statement of Actual Services",
      "X Statement of Actual Services",
      // field 3, the payer with its address
      "Delta Dental",
      "PO Box 997330",
      "Sacramento, CA 95899",
      // fields 12-17: the patient is the subscriber
      "Lopez, Maria",
      "04/12/1985",
      memberId,
      "GRP-4410",
      "Acme Tools",
      // fields 18-23; the account number is the chart number
      "X Self",
      "PAT-000042",
      // the lines as billed: date, tooth, surfaces, code, description, fee
      "03/05/2025",
      "D2740",
      "D2150",
      "MO",
      "1,300.00",
      "200.00",
      // field 32 and 35
      "1,500.00",
      "Crown and filling",
      // field 33: tooth 1 missing, the claimed teeth shaded
      "Missing (X): 1 · On this claim (shaded): 3, 30",
      // the billing and treating dentist at the claim's location
      "Ann Apex, DDS",
      "1234567893",
      "OR-19-4521",
      "36-1234567",
      "503-555-0134",
      "1 Harbor Way",
      "Portland, OR 97201",
      "1223G0001X",
    ])
      expect(r.text).toContain(value);
    expect(r.text).toMatch(/\b3\b/);
    expect(r.text).toMatch(/\b30\b/);
    // the patient's other plan (Cigna, secondary) is the other coverage of the primary claim
    expect(r.text).toContain("Cigna");
    expect(r.text).toContain(`C2${p.patient.slice(-6)}`);
    expect(r.text).toContain("X Dental");
  });

  test("answers application/pdf inline, named by the claim number, not cached", async () => {
    const r = await form(claim.id);
    expect(r.headers.get("content-type")).toBe("application/pdf");
    expect(r.headers.get("content-disposition")).toBe(`inline; filename="claim-${claim.claim_number}.pdf"`);
    expect(r.headers.get("cache-control")).toBe("private, no-store");
    expect(new TextDecoder().decode(r.bytes.slice(0, 5))).toBe("%PDF-");
  });

  test("a secondary claim: the primary claim's carrier, member id and subscriber are the other coverage", async () => {
    const q = await w.patientWith([["D2150", 200, "19/MO"]], { first: "Elena" });
    const primary = await w.claimFor(q);
    await w.move(primary, "sent");
    await w.move(primary, "received");
    const secondary = await w.claimFor(q, { patient_plan_uuid: q.secondary, claim_type: "secondary" });
    const r = await form(secondary.id);
    expect(r.status).toBe(200);
    for (const value of [
      secondary.claim_number,
      "Secondary claim",
      // field 3: the secondary carrier bills
      "Cigna",
      "Chattanooga, TN 37422",
      `C2${q.patient.slice(-6)}`,
      // fields 4-11: the primary's carrier, member id and subscriber
      "X Dental",
      "Delta Dental",
      `W1${q.patient.slice(-6)}`,
      "Lopez, Elena",
      "D2150",
      "On this claim (shaded): 19",
    ])
      expect(r.text).toContain(value);
  });

  test("a dependent's claim: the subscriber is the parent, the patient a dependent child", async () => {
    const parent = await w.patientWith([["D1110", 120]], { first: "Rosa", secondary: false });
    const plan = await w.ok(w.get(`/insurance/patient-plans/${parent.primary}`), 200);
    const child = await w.ok(w.post("/patients", { first_name: "Tomas", last_name: "Lopez", date_of_birth: "2015-06-01", location_uuid: w.location.id }));
    const childPlan = await w.ok(
      w.post("/insurance/patient-plans", { patient_uuid: child.id, subscription_uuid: plan.subscription.uuid, ordinal: 1, relationship: "child" }),
    );
    const proc = await w.ok(
      w.post(`/clinical/patients/${child.id}/procedures`, {
        procedure_code_uuid: w.office.codes.D1110,
        fee_override: 90,
        provider_uuid: w.dentist.id,
        location_uuid: w.location.id,
      }),
    );
    await w.ok(w.patch(`/clinical/procedures/${proc.id}`, { base_version: 1, status: "complete", date_service: "2025-03-05" }), 200);
    const c = await w.claimFor({ patient: child.id, primary: childPlan.id, procedures: [proc.id] });
    const r = await form(c.id);
    expect(r.status).toBe(200);
    for (const value of ["Lopez, Rosa", "Lopez, Tomas", "06/01/2015", "X Dependent Child", `W1${parent.patient.slice(-6)}`, "D1110", "90.00"])
      expect(r.text).toContain(value);
    expect(r.text).not.toContain("X Self");
    // no chart number: the account number is the patient's id (shortened to its box)
    expect(r.text).toContain(child.id.slice(0, 20));
    // a cleaning is no tooth: nothing shaded
    expect(r.text).toContain("On this claim (shaded): none");
  });

  test("a quadrant procedure prints its area of the oral cavity (ADA code 10: upper right) and no tooth", async () => {
    const codes = await w.ok(w.get("/codes/procedure-codes?search=D4341"), 200);
    const code = codes.items.find((c: any) => c.code === "D4341");
    const proc = await w.ok(
      w.post(`/clinical/patients/${p.patient}/procedures`, {
        procedure_code_uuid: code.id,
        fee_override: 250,
        provider_uuid: w.dentist.id,
        location_uuid: w.location.id,
        quadrant: "UR",
      }),
    );
    await w.ok(w.patch(`/clinical/procedures/${proc.id}`, { base_version: 1, status: "complete", date_service: "2025-03-06" }), 200);
    const c = await w.claimFor({ ...p, procedures: [proc.id] });
    const r = await form(c.id);
    expect(r.status).toBe(200);
    expect(r.text).toMatch(/03\/06\/2025 10 JP D4341 /);
    expect(r.text).toContain("On this claim (shaded): none");
  });

  test("each print is audited as claim.form_printed in the org's trail and the platform audit log", async () => {
    const before = (await printsOf(claim.id)).length;
    expect((await form(claim.id, w.tokens.reader)).status).toBe(200);
    const prints = await printsOf(claim.id);
    expect(prints.length).toBe(before + 1);
    const entry = prints.at(-1)!;
    expect(entry).toMatchObject({
      actor_id: w.members.reader.userId,
      actor_type: "user",
      resource_type: "claim",
      resource_id: claim.id,
      before: null,
      after: {
        claim_number: claim.claim_number,
        claim_type: "primary",
        status: "unsent",
        patient_id: p.patient,
        lines: 2,
        total_fee_cents: 150000,
      },
    });
    // the names, member id and note stay on the records: the entry holds ids and figures
    expect(JSON.stringify(entry.after)).not.toContain("Lopez");
    const indexed = await w.t.request("GET", `/api/v1/platform/audit?org_uuid=${w.orgA}&action=claim.form_printed&search=${claim.id}`, { token: w.token });
    expect(indexed.status).toBe(200);
    expect(indexed.body.items.map((i: any) => i.id)).toContain(entry.id);
  });

  test("404 for a missing claim and another org's, both ways; 403 without insurance.claims.read; none of them audited", async () => {
    const before = (await printsOf(claim.id)).length;
    const missing = await form(MISSING);
    expect([missing.status, JSON.parse(missing.text)]).toEqual([404, { detail: "Claim not found", code: "not_found" }]);
    // a member of org B on A's path: A is not their org
    expect((await form(claim.id, w.tokens.memberOfB)).status).toBe(404);
    // A's claim on B's path: B has no such claim
    const crossed = await form(claim.id, w.tokens.memberOfB, w.pathB);
    expect([crossed.status, JSON.parse(crossed.text).detail]).toEqual([404, "Claim not found"]);
    const forbidden = await form(claim.id, w.tokens.clinician);
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get("content-type")).not.toBe("application/pdf");
    expect((await printsOf(claim.id)).length).toBe(before);
  });
});
