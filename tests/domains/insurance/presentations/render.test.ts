import { beforeAll, describe, expect, test } from "bun:test";
import { PDFDocument } from "pdf-lib";
import sharp from "sharp";
import { pdfText, renderPdfPage } from "@/domains/documents/processing/pdf";
import {
  NO_ESTIMATE,
  type PresentationData,
  type PresentationGroup,
  type PresentationLine,
  renderPresentationPdf,
  SIGNATURE_STATEMENT,
  STALE_WARNING,
} from "@/domains/insurance/presentations/render";
import { dollars } from "@/platform/pdf/layout";

// The treatment-plan presentation PDF, rendered from plain data: its text as
// a PDF reader extracts it, the table across pages, the chart where it says
// it drew it, the same bytes for the same data, and the edge cases (another
// script, an empty plan).

const flat = (text: string) => text.replace(/\s+/g, " ");
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

let chartPng: Uint8Array;
beforeAll(async () => {
  chartPng = new Uint8Array(
    await sharp({ create: { width: 1000, height: 500, channels: 3, background: "#1565c0" } })
      .png()
      .toBuffer(),
  );
});

/** A line whose insurance pays `shares` of the fee (one per insurance column); null: no estimate from that plan. */
function line(
  position: number,
  code: string,
  fee_cents: number,
  shares: (number | null)[],
  tooth: string | null = "3",
  surfaces: string | null = null,
): PresentationLine {
  const insurance_cents = shares.map((share) => (share === null ? null : Math.round(fee_cents * share)));
  const patient_cents = Math.max(0, fee_cents - sum(insurance_cents.map((c) => c ?? 0)));
  return { position, code, description: `Procedure ${code}`, tooth, surfaces, fee_cents, insurance_cents, patient_cents };
}

function group(title: string | null, lines: PresentationLine[], columns: number): PresentationGroup {
  const insurance_cents = Array.from({ length: columns }, (_, i) => sum(lines.map((l) => l.insurance_cents[i] ?? 0)));
  return { title, lines, fee_cents: sum(lines.map((l) => l.fee_cents)), insurance_cents, patient_cents: sum(lines.map((l) => l.patient_cents)) };
}

function presentation(groups: PresentationGroup[], overrides: Partial<PresentationData> = {}): PresentationData {
  const insurance = overrides.insurance ?? [{ name: "Primary: Delta Dental" }, { name: "Secondary: MetLife" }];
  return {
    practice: { name: "Bright Smiles Dental", address: ["12 Harbor Road", "Portland, ME 04101"], contact: ["(207) 555-0142", "front@brightsmiles.example"] },
    patient: { name: "Rosa Alvarez", date_of_birth: "1984-06-02", chart_number: "A-1042" },
    plan: { name: "Restorative plan", note: "Start with the urgent phase." },
    prepared_on: "2026-03-15",
    chart_png: chartPng,
    insurance,
    estimate_state: "current",
    groups,
    totals: {
      fee_cents: sum(groups.map((g) => g.fee_cents)),
      insurance_cents: insurance.map((_, i) => sum(groups.map((g) => g.insurance_cents[i] ?? 0))),
      patient_cents: sum(groups.map((g) => g.patient_cents)),
    },
    notes: [],
    note: null,
    signer_name: "Rosa Alvarez",
    ...overrides,
  };
}

/** The strings drawn right after the totals row's "Total" label: fee, each insurance, patient. */
function totalsRow(text: string, columns: number): string[] {
  const lines = text.split("\n");
  const at = lines.lastIndexOf("Total");
  return lines.slice(at + 1, at + 3 + columns);
}

const twoPhases = () => [
  group("Phase 1: Urgent", [line(1, "D2160", 18500, [0.6, 0.2], "3", "MOD"), line(2, "D3330", 123456, [0.5, null], "19")], 2),
  group("Phase 2: Maintenance", [line(3, "D1110", 11000, [1, 0], null), line(4, "D0274", 6500, [0.8, 0.2], "Upper arch")], 2),
];

describe("renderPresentationPdf", () => {
  test("the extracted text has the practice, patient, every line, the insurance columns, totals, warnings, notes and the signature", async () => {
    const groups = twoPhases();
    const d = presentation(groups, {
      estimate_state: "stale",
      notes: ["D1110 on 2026-12-01: frequency limit reached (2 per 12 months)", "D3330: waiting period of 12 months until 2026-09-01"],
      note: "Fees are valid for 90 days.",
    });
    const r = await renderPresentationPdf(d);
    const extracted = await pdfText(r.bytes);
    const all = flat(extracted.pages.join(" "));

    expect(r.pages).toBe(extracted.page_count);
    // the signature block is kept whole, on the last page, under whose plan it is
    const last = flat(extracted.pages.at(-1)!);
    expect(last).toContain(SIGNATURE_STATEMENT);
    expect(last).toContain(`Page ${r.pages} of ${r.pages}`);
    expect(r.pages).toBe(2);
    expect(last).toContain("Rosa Alvarez: Restorative plan (continued)");
    for (const s of ["Bright Smiles Dental", "TREATMENT PLAN", "Prepared Mar 15, 2026", "Rosa Alvarez", "Date of birth: Jun 2, 1984", "Chart no.: A-1042"]) {
      expect(all).toContain(s);
    }
    expect(all).toContain("Plan: Restorative plan");
    expect(all).toContain("Start with the urgent phase.");
    for (const l of groups.flatMap((g) => g.lines)) {
      expect(all).toContain(l.code);
      expect(all).toContain(dollars(l.fee_cents));
    }
    expect(all).toContain("$1,234.56");
    expect(all).toContain("Primary: Delta Dental");
    expect(all).toContain("Secondary: MetLife");
    expect(all).toContain("Phase 1: Urgent");
    expect(all).toContain("Subtotal: Phase 2: Maintenance");
    expect(totalsRow(r.text, 2)).toEqual([dollars(159456), dollars(89028), dollars(5000), dollars(65428)]);
    for (const amount of totalsRow(r.text, 2)) expect(all).toContain(amount);
    expect(all).toContain(flat(STALE_WARNING));
    expect(all).not.toContain(NO_ESTIMATE);
    expect(all).toContain("Insurance notes");
    expect(all).toContain("D1110 on 2026-12-01: frequency limit reached (2 per 12 months)");
    expect(all).toContain("D3330: waiting period of 12 months until 2026-09-01");
    expect(all).toContain("Fees are valid for 90 days.");
    // what was laid out is what a reader finds
    expect(flat(r.text)).toContain(SIGNATURE_STATEMENT);
    expect(r.text.split("\n").slice(-r.pages)).toEqual(Array.from({ length: r.pages }, (_, i) => `Page ${i + 1} of ${r.pages}`));
  }, 20_000);

  test("no estimate from a plan prints a dash; a long insurance name is ellipsised in its header", async () => {
    const insurance = [{ name: "Primary: Northeast Delta Dental Premier Plus Group 4471 PPO" }];
    const r = await renderPresentationPdf(presentation([group(null, [line(1, "D2740", 120000, [null])], 1)], { insurance }));
    const lines = r.text.split("\n");
    expect(lines).toContain("—");
    // the name takes two lines in its header, the second ending in an ellipsis
    const first = lines.findIndex((s) => s.startsWith("Primary: Northeast"));
    expect(first).toBeGreaterThan(-1);
    const second = lines.find((s, i) => i > first && s.endsWith("…"));
    expect(second).toBeDefined();
    expect(`${lines[first]} ${second}`.length).toBeLessThan(insurance[0]!.name.length + 2);
    // an untitled group has no subtotal row
    expect(r.text).not.toContain("Subtotal");
  }, 20_000);

  test("a long plan (60 lines in 3 phases) spans pages, repeats the table header, and totals the lines", async () => {
    let position = 0;
    const phases = [1, 2, 3].map((p) =>
      group(
        `Phase ${p}`,
        Array.from({ length: 20 }, (_, i) =>
          line(++position, `D${String(2000 + position).padStart(4, "0")}`, 10000 + 137 * position, [0.5, i % 3 ? 0.1 : null], String(i + 1), "O"),
        ),
        2,
      ),
    );
    const d = presentation(phases);
    const r = await renderPresentationPdf(d);
    const extracted = await pdfText(r.bytes);

    expect(r.pages).toBeGreaterThan(1);
    expect(r.pages).toBe(extracted.page_count);
    let tablePages = 0;
    extracted.pages.forEach((page, i) => {
      expect(page).toContain(`Page ${i + 1} of ${r.pages}`);
      if (!/D2\d{3}/.test(page)) return;
      tablePages++;
      for (const label of ["Code", "Tooth", "Surf", "Description", "Fee", "Primary: Delta Dental", "Secondary: MetLife", "Patient"])
        expect(page).toContain(label);
      if (i > 0) expect(page).toContain("Rosa Alvarez: Restorative plan (continued)");
    });
    expect(tablePages).toBeGreaterThan(1);
    const all = flat(extracted.pages.join(" "));
    for (const code of phases.flatMap((g) => g.lines.map((l) => l.code))) expect(all).toContain(code);
    for (const p of [1, 2, 3]) expect(all).toContain(`Subtotal: Phase ${p}`);

    const lines = phases.flatMap((g) => g.lines);
    const fee = sum(lines.map((l) => l.fee_cents));
    const first = sum(lines.map((l) => l.insurance_cents[0] ?? 0));
    const second = sum(lines.map((l) => l.insurance_cents[1] ?? 0));
    const patient = sum(lines.map((l) => l.patient_cents));
    expect(fee).toBe(60 * 10000 + 137 * 1830);
    expect(totalsRow(r.text, 2)).toEqual([dollars(fee), dollars(first), dollars(second), dollars(patient)]);
  }, 20_000);

  test("the chart is drawn across the text width on page 1, where chart_box says", async () => {
    const r = await renderPresentationPdf(presentation(twoPhases()));
    const box = r.chart_box!;
    expect(box.page).toBe(1);
    expect(box.x).toBe(48);
    expect(box.width).toBe(516);
    expect(box.height).toBe(258);

    const { data, info } = await sharp(await renderPdfPage(r.bytes, 1))
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const scale = info.width / 612;
    const pixel = (x: number, y: number) => {
      const at = (Math.round((792 - y) * scale) * info.width + Math.round(x * scale)) * info.channels;
      return [data[at]!, data[at + 1]!, data[at + 2]!];
    };
    const near = (rgb: number[], want: number[]) => rgb.every((v, i) => Math.abs(v - want[i]!) <= 6);
    const blue = [0x15, 0x65, 0xc0];
    expect(near(pixel(box.x + box.width / 2, box.y + box.height / 2), blue)).toBe(true);
    expect(near(pixel(box.x + 4, box.y + 4), blue)).toBe(true);
    expect(near(pixel(box.x + box.width - 4, box.y + box.height - 4), blue)).toBe(true);
    // just outside the box the page is white
    expect(near(pixel(box.x + box.width / 2, box.y - 4), [255, 255, 255])).toBe(true);
  }, 20_000);

  test("the same data gives the same bytes, dated from prepared_on", async () => {
    const d = presentation(twoPhases(), { notes: ["A note"] });
    const a = await renderPresentationPdf(d);
    const b = await renderPresentationPdf(structuredClone(d));
    expect(Buffer.from(a.bytes).equals(Buffer.from(b.bytes))).toBe(true);
    expect(a.text).toBe(b.text);
    const loaded = await PDFDocument.load(a.bytes, { updateMetadata: false });
    expect(loaded.getCreationDate()?.toISOString()).toBe("2026-03-15T00:00:00.000Z");
    expect(loaded.getModificationDate()?.toISOString()).toBe("2026-03-15T00:00:00.000Z");
    expect(loaded.getProducer()).toBe("Cusp");
    expect(loaded.getCreator()).toBe("Cusp");
    const later = await renderPresentationPdf({ ...d, prepared_on: "2026-03-16" });
    expect(Buffer.from(later.bytes).equals(Buffer.from(a.bytes))).toBe(false);
  }, 20_000);

  test("a name in another script does not throw; the accented letter is drawn and what cannot be is a ?", async () => {
    const r = await renderPresentationPdf(
      presentation(twoPhases(), { patient: { name: "Zoë 李", date_of_birth: null, chart_number: null }, signer_name: "Zoë 李" }),
    );
    const lines = r.text.split("\n");
    expect(lines).toContain("Zoë ?");
    expect(lines.some((s) => s.startsWith("Date of birth"))).toBe(false);
    const extracted = await pdfText(r.bytes);
    expect(extracted.pages.join(" ")).toContain("Zoë");
  }, 20_000);

  test("an empty plan renders its note, no insurance estimate and zero totals", async () => {
    const d = presentation([], { insurance: [], estimate_state: "none", note: "This treatment plan has no procedures." });
    const r = await renderPresentationPdf(d);
    expect(d.totals).toEqual({ fee_cents: 0, insurance_cents: [], patient_cents: 0 });
    expect(r.pages).toBe(1);
    expect(totalsRow(r.text, 0)).toEqual(["$0.00", "$0.00"]);
    const all = flat((await pdfText(r.bytes)).pages.join(" "));
    expect(all).toContain("This treatment plan has no procedures.");
    expect(all).toContain(NO_ESTIMATE);
    expect(all).not.toContain("Insurance notes");
    expect(all).toContain(SIGNATURE_STATEMENT);
  }, 20_000);
});
