import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { fileAnswer } from "@/platform/http/file-answer";
import { orgErrors } from "@/platform/http/openapi";
import { ChartPngQuery, ChartSvgQuery, PerioPngQuery, PerioSvgQuery, PngFile, PNG_WIDTH, SvgFile } from "./schemas";
import { drawPerioChart, drawToothChart, pictureAsPng } from "./service";

// The chart as a picture (docs/clinical/chart-pictures.md): the tooth chart
// and a perio exam as SVG and PNG.

const TOOTH =
  "All 32 permanent teeth, and the 20 primary ones when primary teeth are charted, each with its five surfaces: missing teeth crossed out, implants, pontics and bridges joined, root canals, crowns, conditions as marks; treatment planned red, completed blue, existing green, referred out purple, conditions orange, with a legend; procedures on no single tooth listed under the chart. Labels in the org's tooth_numbering (GET {P}/odontogram/settings) unless numbering is given. The same records always give the same picture. Each picture is audited as patient.chart_rendered.";
const TOOTH_ERRORS =
  "404 when the patient, or the treatment plan (missing, deleted or another patient's), is missing. 422 naming the parameter: an unknown show or numbering, an unknown parameter, a date that is not YYYY-MM-DD, before the patient's birth (date_before_birth) or in the future at the patient's practice (date_in_future).";
const PERIO =
  "Six sites per tooth, facial and lingual bands: pocket depths as bars (4-5 mm amber, 6 mm and over red), bleeding, suppuration and plaque as dots, recession, mobility and furcation; teeth charted absent on the exam's date crossed out. compare_to overlays another exam's depths as outlines and marks each site 2 mm or more deeper (+) or shallower (-). Audited as perio_exam.chart_rendered.";
const PERIO_ERRORS =
  "404 when the patient, the exam or the exam to compare with is missing, deleted or another patient's. 422 for an unknown parameter or value.";
const WIDTH = `width: ${PNG_WIDTH.min}-${PNG_WIDTH.max} pixels (default ${PNG_WIDTH.default}), else 422 naming width.`;
const fileName = (chart: string, what: string, ext: string) => `${what}-${chart}.${ext}`;

export const chartPictureRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.chart-pictures", prefix: "/api/v1/:org_id/clinical/patients/:patient_uuid", tags: ["Clinical: chart pictures"] })
    .use(guard(rt))
    .get(
      "/chart.svg",
      async ({ ctx, params, query }) => {
        const d = await drawToothChart(ctx, params.patient_uuid, { ...query, format: "svg" });
        return fileAnswer(d.svg, { type: "image/svg+xml", fileName: fileName(d.chart_number, "chart", "svg") });
      },
      {
        permission: "clinical.read",
        query: ChartSvgQuery,
        response: { 200: SvgFile, ...orgErrors() },
        detail: {
          operationId: "getClinicalPatientChartSvg",
          summary: "The tooth chart as SVG",
          description: `${TOOTH} Self-contained (no external fonts or links), with a <title>, and one <g data-tooth> per tooth with a <desc> of what is drawn on it. ${TOOTH_ERRORS}`,
        },
      },
    )
    .get(
      "/chart.png",
      async ({ ctx, params, query }) => {
        const { width, ...ask } = query;
        const d = await drawToothChart(ctx, params.patient_uuid, { ...ask, format: "png" });
        return fileAnswer(await pictureAsPng(d, width), { type: "image/png", fileName: fileName(d.chart_number, "chart", "png") });
      },
      {
        permission: "clinical.read",
        query: ChartPngQuery,
        response: { 200: PngFile, ...orgErrors() },
        detail: {
          operationId: "getClinicalPatientChartPng",
          summary: "The tooth chart as PNG",
          description: `The SVG picture rasterised. ${WIDTH} ${TOOTH} ${TOOTH_ERRORS}`,
        },
      },
    )
    .get(
      "/perio-exams/:exam_uuid/chart.svg",
      async ({ ctx, params, query }) => {
        const d = await drawPerioChart(ctx, params.patient_uuid, params.exam_uuid, { ...query, format: "svg" });
        return fileAnswer(d.svg, { type: "image/svg+xml", fileName: fileName(d.chart_number, "perio", "svg") });
      },
      {
        permission: "clinical.read",
        query: PerioSvgQuery,
        response: { 200: SvgFile, ...orgErrors() },
        detail: { operationId: "getClinicalPerioExamChartSvg", summary: "A perio exam as SVG", description: `${PERIO} ${PERIO_ERRORS}` },
      },
    )
    .get(
      "/perio-exams/:exam_uuid/chart.png",
      async ({ ctx, params, query }) => {
        const { width, ...ask } = query;
        const d = await drawPerioChart(ctx, params.patient_uuid, params.exam_uuid, { ...ask, format: "png" });
        return fileAnswer(await pictureAsPng(d, width), { type: "image/png", fileName: fileName(d.chart_number, "perio", "png") });
      },
      {
        permission: "clinical.read",
        query: PerioPngQuery,
        response: { 200: PngFile, ...orgErrors() },
        detail: {
          operationId: "getClinicalPerioExamChartPng",
          summary: "A perio exam as PNG",
          description: `The SVG picture rasterised. ${WIDTH} ${PERIO} ${PERIO_ERRORS}`,
        },
      },
    );
