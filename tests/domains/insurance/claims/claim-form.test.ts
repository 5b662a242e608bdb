import { describe, expect, test } from "bun:test";
import { extractText, getDocumentProxy } from "unpdf";
import { type ClaimFormData, renderClaimFormPdf } from "@/domains/insurance/claims/form-pdf";

// The printable claim form, pure: the values and field labels in the PDF
// itself (read back with unpdf), the page count, ten lines a page with the
// totals only on the last page, text WinAnsi cannot encode, and the same
// claim rendering the same bytes.

/** The PDF's text, pages in order (a copy of the bytes: pdf.js detaches what it is given). */
async function pdfPages(bytes: Uint8Array): Promise<{ pages: string[]; count: number }> {
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  const { totalPages, text } = await extractText(pdf, { mergePages: false });
  return { pages: text, count: totalPages };
}

const line = (code: string, tooth: string | null, fee: number, over: Partial<ClaimFormData["lines"][number]> = {}): ClaimFormData["lines"][number] => ({
  date_service: "2025-03-05",
  area: null,
  tooth_system: "JP",
  tooth_number: tooth,
  surfaces: null,
  procedure_code: code,
  description: code,
  fee_cents: fee,
  ...over,
});

/** A secondary claim with other coverage: a crown on 3 and a two-surface filling on 30. */
const claim = (over: Partial<ClaimFormData> = {}): ClaimFormData => ({
  claim_number: "CL-2025-000123",
  claim_type: "secondary",
  prior_authorization_number: null,
  payer: { name: "Delta Dental of Somewhere", address: ["PO Box 1809", "Alpharetta, GA 30023"] },
  other_coverage: { name: "MetLife Dental", member_id: "MET445566", subscriber_name: "Rivera, Dana", relationship: "spouse" },
  subscriber: {
    name: "Rivera, Alex",
    address: ["12 Elm Street", "Springfield, IL 62701"],
    birthdate: "1980-07-14",
    gender: "M",
    member_id: "DDX99887766",
    group_number: "GRP-4410",
    employer: "Springfield Power",
  },
  patient: {
    name: "Rivera, Alex",
    address: ["12 Elm Street", "Springfield, IL 62701"],
    birthdate: "1980-07-14",
    gender: "M",
    relationship: "self",
    account_id: "PAT-000042",
  },
  lines: [
    line("D2740", "3", 130000, { description: "Crown - porcelain/ceramic" }),
    line("D2391", "30", 20000, { surfaces: "MO", description: "Resin-based composite - two surfaces, posterior" }),
  ],
  missing_teeth: ["1", "16"],
  remarks: "Primary EOB enclosed.",
  total_fee_cents: 150000,
  other_fees_cents: 0,
  place_of_service: "11",
  attachments: 1,
  billing_provider: {
    name: "Bright Smiles Dental PC",
    address: ["400 Main Street, Suite 2", "Springfield, IL 62701"],
    npi: "1234567893",
    license: "IL-19-004521",
    tax_id: "36-1234567",
    phone: "(217) 555-0134",
  },
  treating_provider: {
    name: "Dr. Maya Chen, DDS",
    npi: "1987654321",
    license: "IL-19-009876",
    address: ["400 Main Street, Suite 2", "Springfield, IL 62701"],
    taxonomy: "1223G0001X",
  },
  date_prepared: "2025-03-06",
  ...over,
});

describe("renderClaimFormPdf", () => {
  test("a secondary claim: its values and field labels are in the PDF, on one page", async () => {
    const r = await renderClaimFormPdf(claim());
    const { pages, count } = await pdfPages(r.bytes);
    expect(r.pages).toBe(1);
    expect(count).toBe(1);
    const pdf = pages[0]!;
    for (const value of [
      "CL-2025-000123",
      "DDX99887766",
      "MET445566",
      "MetLife Dental",
      "1234567893",
      "1987654321",
      "1,300.00",
      "200.00",
      "1,500.00",
      "D2740",
      "D2391",
      "MO",
      "03/05/2025",
      "07/14/1980",
      "PAT-000042",
      "Delta Dental of Somewhere",
      "Dental Claim: Statement of Actual Services",
      "32. Total Fee",
      "31a. Other Fee(s)",
      "30. Description",
      "49. NPI",
      "15. Policyholder/Subscriber ID (Assigned by Plan)",
      "HEADER INFORMATION",
      "RECORD OF SERVICES PROVIDED",
      "MISSING TEETH INFORMATION",
      "TREATING DENTIST AND TREATING LOCATION INFORMATION",
      "Cusp claim CL-2025-000123 · page 1 of 1",
      "not the ADA's form",
    ]) {
      expect(pdf).toContain(value);
      expect(r.text).toContain(value);
    }
    // tooth 30 in the table and on the chart, both claimed teeth listed under the chart
    expect(pdf).toMatch(/\b30\b/);
    expect(pdf).toContain("Missing (X): 1, 16 · On this claim (shaded): 3, 30");
    expect(pdf).toContain("X Statement of Actual Services");
    expect(pdf).toContain("X Spouse"); // field 10, the patient to the other coverage's subscriber
    expect(pdf).toContain("X Self"); // field 18
    expect(r.text.split("\n")[0]).toBe("Dental Claim: Statement of Actual Services");
    expect(pdf).not.toContain("continued on page");
  });

  test("a preauthorization carries the request's heading and its number", async () => {
    const r = await renderClaimFormPdf(claim({ claim_type: "preauth", prior_authorization_number: "PA-7788", other_coverage: null }));
    const pdf = (await pdfPages(r.bytes)).pages[0]!;
    expect(r.text.split("\n")[0]).toBe("Request for Predetermination/Preauthorization");
    expect(pdf).toContain("X Request for Predetermination/Preauthorization");
    expect(pdf).not.toContain("X Statement of Actual Services");
    expect(pdf).toContain("PA-7788");
    expect(pdf).not.toContain("Dental Claim: Statement of Actual Services");
  });

  test("23 lines: 3 pages of ten, numbered on; the totals only on the last page", async () => {
    const lines = Array.from({ length: 23 }, (_, i) => line(`D${1000 + i}`, String((i % 32) + 1), 1000 * (i + 1)));
    const total = lines.reduce((s, l) => s + l.fee_cents, 0);
    const r = await renderClaimFormPdf(claim({ lines, total_fee_cents: total }));
    const { pages, count } = await pdfPages(r.bytes);
    expect(r.pages).toBe(3);
    expect(count).toBe(3);
    expect(pages[0]).toContain("D1009");
    expect(pages[0]).not.toContain("D1010");
    expect(pages[1]).toContain("D1010");
    expect(pages[1]).toContain("(lines 11-20 of 23)");
    expect(pages[2]).toContain("D1022");
    expect(pages[2]).not.toContain("D1019");
    expect(pages[0]).toContain("continued on page 2");
    expect(pages[1]).toContain("continued on page 3");
    expect(pages[2]).not.toContain("continued on page");
    expect(pages[2]).toContain("2,760.00");
    expect(pages[0]).not.toContain("2,760.00");
    expect(pages[2]).toContain("Cusp claim CL-2025-000123 · page 3 of 3");
    // every page is a whole form
    for (const page of pages) expect(page).toContain("DDX99887766");
  });

  test("text outside WinAnsi renders as '?', and values too long are shortened with '...'", async () => {
    const long = "Crown - porcelain fused to high noble metal, with a description far longer than the column can hold";
    const r = await renderClaimFormPdf(
      claim({ patient: { ...claim().patient, name: "Łukasz 李" }, lines: [line("D2750", "14", 140000, { description: long })], remarks: "emoji 🦷 ok" }),
    );
    const pdf = (await pdfPages(r.bytes)).pages[0]!;
    expect(pdf).toContain("?ukasz ?");
    expect(pdf).toContain("emoji ? ok");
    expect(r.text).toContain("?ukasz ?");
    expect(r.text).toMatch(/Crown - porcelain fused to high noble metal[^\n]*\.\.\./);
    expect(r.text).not.toContain(long);
    expect(r.text).not.toContain("…");
  });

  test("a claim with no lines, no other coverage and no treating dentist still renders one page", async () => {
    const r = await renderClaimFormPdf(claim({ lines: [], other_coverage: null, treating_provider: null, remarks: null, total_fee_cents: 0 }));
    expect(r.pages).toBe(1);
    expect((await pdfPages(r.bytes)).pages[0]).toContain("0.00");
  });

  test("deterministic: the same claim renders the same text and bytes", async () => {
    const [a, b] = await Promise.all([renderClaimFormPdf(claim()), renderClaimFormPdf(claim())]);
    expect(a.text).toBe(b.text);
    expect(Buffer.from(a.bytes).equals(Buffer.from(b.bytes))).toBe(true);
  });
});
