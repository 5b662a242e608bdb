// The pictures docs/clinical/chart-pictures.md shows, drawn by the service's
// own renderers from example charts (no database, no server): the same code
// the endpoints run, so the docs show what a client gets.
//
//   bun run scripts/render-chart-examples.ts     writes docs/clinical/chart-pictures/*.png
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ChartTooth, PerioChartTooth, PerioSite, ToothChartPicture, ToothMark } from "@/domains/clinical/chart-pictures/model";
import { toothLabel } from "@/domains/clinical/chart-pictures/numbering";
import { perioChartSize, renderPerioChartSvg } from "@/domains/clinical/chart-pictures/perio-chart-svg";
import { svgToPng } from "@/domains/clinical/chart-pictures/png";
import { renderToothChartSvg, toothChartSize } from "@/domains/clinical/chart-pictures/tooth-chart-svg";
import { renderPdfPage } from "@/domains/documents/processing/pdf";
import { renderPresentationPdf } from "@/domains/insurance/presentations/render";

const OUT = join(import.meta.dir, "../docs/clinical/chart-pictures");

const mark = (kind: ToothMark["kind"], status: ToothMark["status"], text: string, surfaces: ToothMark["surfaces"] = []): ToothMark => ({
  kind,
  status,
  surfaces,
  text,
});

function adultChart(numbering: "universal" | "fdi"): ToothChartPicture {
  const marks: Record<string, ToothMark[]> = {
    "2": [mark("crown", "planned", "D2740 Crown - porcelain/ceramic, planned")],
    "3": [mark("surfaces", "planned", "D2160 Amalgam, three surfaces MOD, planned", ["M", "O", "D"])],
    "4": [mark("surfaces", "condition", "caries (D), condition", ["D"])],
    "8": [mark("fracture", "condition", "fracture, condition")],
    "9": [mark("surfaces", "completed", "D2330 Resin, one surface F, completed", ["B"])],
    "14": [mark("root_canal", "completed", "D3330 Root canal, molar, completed"), mark("crown", "existing", "D2750 Crown, existing")],
    "19": [mark("crown", "planned", "D6750 Retainer crown, planned")],
    "20": [mark("pontic", "planned", "D6240 Pontic, planned")],
    "21": [mark("crown", "planned", "D6750 Retainer crown, planned")],
    "30": [mark("implant", "existing", "D6010 Implant, existing"), mark("crown", "existing", "D6065 Implant crown, existing")],
    "29": [mark("watch", "condition", "watch, condition")],
    "31": [mark("surfaces", "referred", "D2391 Resin, one surface O, referred out", ["O"])],
  };
  const teeth: ChartTooth[] = Array.from({ length: 32 }, (_, i) => {
    const t = String(i + 1);
    const shape = t === "1" || t === "16" || t === "17" ? "absent" : t === "32" ? "unerupted" : "present";
    return {
      tooth: t,
      label: toothLabel(t, numbering),
      shape,
      status_text: shape === "absent" ? "missing" : shape === "unerupted" ? "impacted" : "present",
      marks: t === "18" ? [mark("extraction", "planned", "D7140 Extraction, planned")] : (marks[t] ?? []),
    };
  });
  return {
    title: `Tooth chart: Jane Example${numbering === "fdi" ? " (FDI)" : ""}`,
    numbering,
    primary_row: false,
    teeth,
    spans: [{ teeth: ["19", "20", "21"], status: "planned", text: "Bridge 19-20-21, planned" }],
    elsewhere: [{ status: "planned", text: "D4341 Scaling and root planing, UR, planned" }],
    note: null,
  };
}

function childChart(): ToothChartPicture {
  const permanent = new Set(["3", "14", "19", "30", "8", "9", "24", "25", "23", "26"]);
  const teeth: ChartTooth[] = [
    ...Array.from({ length: 32 }, (_, i): ChartTooth => {
      const t = String(i + 1);
      const shape = permanent.has(t) ? "present" : "unerupted";
      return {
        tooth: t,
        label: t,
        shape,
        status_text: shape === "present" ? "present" : "unerupted",
        marks: t === "3" || t === "14" ? [mark("surfaces", "completed", "D1351 Sealant O, completed", ["O"])] : [],
      };
    }),
    ...Array.from({ length: 20 }, (_, i): ChartTooth => {
      const t = String.fromCharCode(65 + i);
      const gone = ["E", "F", "O", "P", "N", "Q"].includes(t);
      return {
        tooth: t,
        label: t,
        shape: gone ? "absent" : "present",
        status_text: gone ? "missing" : "primary",
        marks:
          t === "K"
            ? [mark("surfaces", "planned", "D2140 Amalgam, one surface O, planned", ["O"]), mark("surfaces", "condition", "caries (O), condition", ["O"])]
            : [],
      };
    }),
  ];
  return { title: "Tooth chart: Sam Example (mixed dentition)", numbering: "universal", primary_row: true, teeth, spans: [], elsewhere: [], note: null };
}

const SITES: PerioSite[] = ["mb", "b", "db", "ml", "l", "dl"];
function perioTeeth(seed: number, deeper: number): PerioChartTooth[] {
  let x = seed;
  const next = () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
  return Array.from({ length: 32 }, (_, i) => String(i + 1))
    .filter((t) => t !== "1" && t !== "16" && t !== "17" && t !== "32")
    .map((t) => {
      const molar = ["2", "3", "14", "15", "18", "19", "30", "31"].includes(t);
      const depth = (s: PerioSite) => Math.min(9, 2 + Math.floor(next() * 2) + (molar && (s === "db" || s === "dl") ? deeper : 0));
      const pocket = Object.fromEntries(SITES.map((s) => [s, depth(s)])) as PerioChartTooth["pocket_depths"];
      return {
        tooth: t,
        label: t,
        pocket_depths: pocket,
        recession: molar ? { mb: 0, b: 1, db: 2, ml: 0, l: 1, dl: 1 } : null,
        bleeding_sites: SITES.filter((s) => pocket[s] >= 4),
        plaque_sites: next() < 0.3 ? ["b"] : [],
        suppuration_sites: pocket.db >= 6 ? ["db"] : [],
        mobility: molar && deeper > 2 ? 1 : null,
        furcation: molar && deeper > 2 ? 1 : null,
      };
    });
}

async function png(svg: string, width: number, name: string) {
  writeFileSync(join(OUT, name), await svgToPng(svg, width, 1200));
  console.log(`wrote docs/clinical/chart-pictures/${name}`);
}

mkdirSync(OUT, { recursive: true });
const adult = adultChart("universal");
await png(renderToothChartSvg(adult), toothChartSize(adult).width, "tooth-chart.png");
const fdi = adultChart("fdi");
await png(renderToothChartSvg(fdi), toothChartSize(fdi).width, "tooth-chart-fdi.png");
const child = childChart();
await png(renderToothChartSvg(child), toothChartSize(child).width, "tooth-chart-mixed.png");
const perio = {
  title: "Periodontal chart: Jane Example, exam of 2026-05-04",
  numbering: "universal" as const,
  exam: { exam_date: "2026-05-04", teeth: perioTeeth(7, 3) },
  compare_to: { exam_date: "2025-11-03", teeth: perioTeeth(7, 1) },
  absent_teeth: ["1", "16", "17", "32"],
};
await png(renderPerioChartSvg(perio), perioChartSize(perio).width, "perio-chart-compare.png");

const planChart = adultChart("universal");
const chartPng = await svgToPng(renderToothChartSvg(planChart), toothChartSize(planChart).width, 1600);
const pdf = await renderPresentationPdf({
  practice: { name: "Harbor Dental", address: ["1 Harbor Way", "Portland, OR 97201"], contact: ["(503) 555-0100"] },
  patient: { name: "Jane Example", date_of_birth: "1980-05-01", chart_number: "HD-1042" },
  plan: { name: "Restore the lower left", note: null },
  prepared_on: "2026-11-29",
  chart_png: chartPng,
  insurance: [{ name: "Primary: Delta Dental" }],
  estimate_state: "current",
  groups: [
    {
      title: "Phase 1: Urgent",
      lines: [
        {
          position: 1,
          code: "D2160",
          description: "Amalgam - three surfaces",
          tooth: "3",
          surfaces: "MOD",
          fee_cents: 21_000,
          insurance_cents: [16_800],
          patient_cents: 4_200,
        },
      ],
      fee_cents: 21_000,
      insurance_cents: [16_800],
      patient_cents: 4_200,
    },
    {
      title: "Phase 2: Bridge",
      lines: [
        {
          position: 2,
          code: "D6750",
          description: "Retainer crown - porcelain fused to high noble",
          tooth: "19",
          surfaces: null,
          fee_cents: 120_000,
          insurance_cents: [60_000],
          patient_cents: 60_000,
        },
        {
          position: 3,
          code: "D6240",
          description: "Pontic - porcelain fused to high noble",
          tooth: "20",
          surfaces: null,
          fee_cents: 110_000,
          insurance_cents: [28_000],
          patient_cents: 82_000,
        },
        {
          position: 4,
          code: "D6750",
          description: "Retainer crown - porcelain fused to high noble",
          tooth: "21",
          surfaces: null,
          fee_cents: 120_000,
          insurance_cents: [0],
          patient_cents: 120_000,
        },
      ],
      fee_cents: 350_000,
      insurance_cents: [88_000],
      patient_cents: 262_000,
    },
  ],
  totals: { fee_cents: 371_000, insurance_cents: [104_800], patient_cents: 266_200 },
  notes: ["D6750 #21: annual maximum reached ($1,500.00 per benefit year)"],
  note: null,
  signer_name: "Jane Example",
});
writeFileSync(join(OUT, "presentation-page-1.png"), await renderPdfPage(pdf.bytes.slice(), 1, 1.5));
console.log("wrote docs/clinical/chart-pictures/presentation-page-1.png");
