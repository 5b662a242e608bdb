import { expect } from "bun:test";
import sharp from "sharp";
import { pdfText } from "@/domains/documents/processing/pdf";
import { dollars } from "@/platform/pdf/layout";
import { twoOrgApp } from "@tests/helpers";
import { setUpOffice } from "@tests/domains/insurance/estimates/fixtures";

// The presentation tests' world: org A with the estimate tests' office (plans
// A and B, Delta Dental and Cigna), a reader (clinical.read) and a presenter
// (documents.sign only), and the calls the tests repeat, made through the API.

export type World = Awaited<ReturnType<typeof presentationWorld>>;
/** The presentation fields the signing calls need. */
export type Presented = { document_uuid: string; signature_uuid: string };

export async function presentationWorld() {
  const app = await twoOrgApp({ reader: ["clinical.read"], presenter: ["documents.sign"] });
  const office = await setUpOffice(app.t, app.admin, app.orgA);
  const org = await app.t.request("GET", `/api/v1/admin/orgs/${app.orgA}`, { token: app.admin });
  if (org.status !== 200) throw new Error(`GET org failed: ${org.status} ${org.text}`);
  return { ...app, office, orgName: org.body.name as string };
}

export const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
const flat = (text: string) => text.replace(/\s+/g, " ");
/** "450.00" (an answer's dollars) as the PDF prints it: "$450.00". */
export const printed = (amount: string) => dollars(Math.round(Number(amount) * 100));

/** An answer that must have `status`; its body. */
async function expectOk(w: World, method: string, path: string, status: number, body?: unknown) {
  const r = await w.t.request(method, path, { token: w.admin, body });
  if (r.status !== status) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
  return r.body;
}

/** GET .../presentation.pdf with its headers and raw bytes. */
export async function getPdf(w: World, planPath: string, token: string = w.admin) {
  const res = await w.t.handle(new Request(`http://localhost${planPath}/presentation.pdf`, { headers: { authorization: `Bearer ${token}` } }));
  return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
}

/** The text a PDF reader extracts, every page, whitespace collapsed. */
export async function textOf(bytes: Uint8Array) {
  return flat((await pdfText(bytes)).pages.join(" "));
}

/** GET .../presentation.pdf (200 expected) as text. */
export async function pdfTextOf(w: World, planPath: string) {
  const pdf = await getPdf(w, planPath);
  expect(pdf.status).toBe(200);
  return textOf(pdf.bytes);
}

/** The bytes a document's download URL serves. */
export async function documentFile(w: World, documentId: string) {
  const link = await expectOk(w, "GET", `${w.pathA}/documents/${documentId}/download`, 200);
  const res = await w.t.handle(new Request(`http://localhost${link.download_url}`));
  expect(res.status).toBe(200);
  return new Uint8Array(await res.arrayBuffer());
}

export const getDocument = (w: World, documentId: string) => expectOk(w, "GET", `${w.pathA}/documents/${documentId}`, 200);
export const signaturesOf = (w: World, documentId: string) => expectOk(w, "GET", `${w.pathA}/documents/${documentId}/signatures`, 200);
export const getPlan = (w: World, planPath: string) => expectOk(w, "GET", planPath, 200);
export const estimatesOf = (w: World, planPath: string) => expectOk(w, "GET", `${planPath}/estimates`, 200);
export const listOf = (w: World, planPath: string) => expectOk(w, "GET", `${planPath}/presentations`, 200);
export const estimate = (w: World, planPath: string) => expectOk(w, "POST", `${planPath}/estimate`, 200);
/** The patient's documents (any type). */
export const patientDocuments = (w: World, patientId: string) => expectOk(w, "GET", `${w.pathA}/documents?owner_type=patient&owner_uuid=${patientId}`, 200);

/** POST .../presentations as the presenter (documents.sign only); 201 expected. */
export const present = (w: World, planPath: string, body?: unknown) => {
  return w.t.request("POST", `${planPath}/presentations`, { token: w.tokens.presenter, body }).then((r) => {
    if (r.status !== 201) throw new Error(`present: ${r.status} ${r.text}`);
    return r.body;
  });
};

/** Signs the presentation's pending request (typed), as the presenter. */
export const sign = (w: World, p: Presented, text = "Maria Lopez") =>
  w.t.request("POST", `${w.pathA}/documents/${p.document_uuid}/signatures/${p.signature_uuid}/sign`, {
    token: w.tokens.presenter,
    body: { signature_type: "typed", signature_text: text },
  });

/** Sets a charted procedure's fee_override (dollars) with its current base_version. */
export async function setFee(w: World, procedureId: string, fee: number) {
  const path = `${w.pathA}/clinical/procedures/${procedureId}`;
  const proc = await expectOk(w, "GET", path, 200);
  return expectOk(w, "PATCH", path, 200, { base_version: proc.version, fee_override: fee });
}

/** Charts a procedure for the patient and appends it to the plan. */
export async function addProcedure(w: World, patientId: string, planPath: string, code: string, fee: number, tooth: string) {
  const proc = await expectOk(w, "POST", `${w.pathA}/clinical/patients/${patientId}/procedures`, 201, {
    procedure_code_uuid: w.office.codes[code],
    fee_override: fee,
    tooth_number: tooth,
  });
  await expectOk(w, "POST", `${planPath}/procedures`, 201, { procedure_uuid: proc.id });
  return proc.id as string;
}

/** Moves the plan to `status` through POST .../status. */
export async function movePlan(w: World, planPath: string, status: string) {
  const plan = await getPlan(w, planPath);
  return expectOk(w, "POST", `${planPath}/status`, 200, { base_version: plan.version, status });
}

/** Sets the patient's chart number. */
export async function setChartNumber(w: World, patientId: string, chart: string) {
  const path = `${w.pathA}/patients/${patientId}`;
  const patient = await expectOk(w, "GET", path, 200);
  return expectOk(w, "PATCH", path, 200, { base_version: patient.version, chart_number: chart });
}

/** How many pixels of a PNG are close to the chart's "planned" red, #d32f2f. */
export async function plannedRedPixels(png: Uint8Array) {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const near = (value: number, target: number) => Math.abs(value - target) <= 30;
  let count = 0;
  for (let i = 0; i < data.length; i += info.channels) if (near(data[i]!, 0xd3) && near(data[i + 1]!, 0x2f) && near(data[i + 2]!, 0x2f)) count++;
  return count;
}
