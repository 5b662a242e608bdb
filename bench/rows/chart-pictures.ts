// (v1, v2) issue 35's tooth chart as a picture (docs/clinical/chart-pictures.md)
// against the same chart as JSON, on a fresh org: one adult with a full chart
// (32 teeth charted, 40 procedures of every drawn kind and status, a bridge,
// 10 conditions), built through the API. Measured at 50 connections:
// (v1) `GET .../chart/at-date?date=<today>` (the chart's JSON) and
// (v2) `GET .../chart.svg` (the same records drawn, and the picture audited).
// The issue asks that drawing be no more than a few times slower than the JSON.

import { api, createOrg } from "@bench/runner/api";
import type { RowFamily } from "@bench/runner/family";

/** 40 procedures: [code, tooth, surfaces, status]. */
const PROCEDURES: [string, string, string | null, string][] = [
  ...["2", "3", "14", "15", "18", "19", "30", "31"].map((t, i): [string, string, string | null, string] => [
    "D2160",
    t,
    "MOD",
    i % 2 ? "treatment_planned" : "complete",
  ]),
  ...["4", "5", "12", "13", "20", "21", "28", "29"].map((t, i): [string, string, string | null, string] => [
    "D2391",
    t,
    "O",
    i % 2 ? "existing_current" : "treatment_planned",
  ]),
  ...["6", "7", "8", "9", "10", "11"].map((t, i): [string, string, string | null, string] => ["D2330", t, "F", i % 3 ? "complete" : "existing_other"]),
  ...["2", "15", "18", "31"].map((t): [string, string, string | null, string] => ["D2740", t, null, "treatment_planned"]),
  ...["3", "14", "19", "30"].map((t): [string, string, string | null, string] => ["D3330", t, null, "complete"]),
  ...["22", "23", "24", "25", "26", "27"].map((t): [string, string, string | null, string] => ["D1351", t, null, "existing_current"]),
  ["D7140", "1", null, "treatment_planned"],
  ["D7140", "16", null, "treatment_planned"],
  ["D7140", "17", null, "referred"],
  ["D7140", "32", null, "treatment_planned"],
];
const CONDITIONS: [string, string, string | null][] = [
  ["caries", "4", "D"],
  ["caries", "13", "M"],
  ["caries", "20", "O"],
  ["fracture", "8", null],
  ["abscess", "19", null],
  ["watch", "29", null],
  ["decalcification", "6", "F"],
  ["erosion", "11", "F"],
  ["attrition", "24", "I"],
  ["periapical_lesion", "30", null],
];

export const chartPictures: RowFamily = {
  ids: ["v1", "v2"],
  together: true,
  stage: "cusp",
  async run(ctx) {
    const { server: srv, token, auth } = ctx;
    const org = await createOrg(srv.base, token, "chart-pictures");
    const P = `/api/v1/${org}`;
    const call = (method: string, path: string, body?: unknown) => api(srv.base, method, `${P}${path}`, body, token);
    const patient = await call("POST", "/patients", { first_name: "Fulla", last_name: "Chart", date_of_birth: "1975-03-04" });
    const C = `/clinical/patients/${patient.id}`;
    await call("POST", `${C}/tooth-statuses/seed`, { mode: "age_based" });
    const codes = new Map<string, string>();
    for (const code of new Set([...PROCEDURES.map((p) => p[0]), "D6240", "D6750"])) {
      const found = await call("GET", `/codes/procedure-codes?search=${code}`);
      codes.set(code, found.items.find((c: { code: string }) => c.code === code).id);
    }
    for (const [code, tooth, surfaces, status] of PROCEDURES) {
      await call("POST", `${C}/procedures`, { procedure_code_uuid: codes.get(code), tooth_number: tooth, ...(surfaces ? { surfaces } : {}), status });
    }
    await call("PUT", `${C}/tooth-statuses`, { tooth_number: "20", status: "missing" });
    const members = [];
    for (const [code, tooth, role] of [
      ["D6750", "19", "abutment"],
      ["D6240", "20", "pontic"],
      ["D6750", "21", "abutment"],
    ] as const) {
      const p = await call("POST", `${C}/procedures`, { procedure_code_uuid: codes.get(code), tooth_number: tooth });
      members.push({ procedure_uuid: p.id, role });
    }
    await call("POST", `${C}/spans`, { members });
    for (const [type, tooth, surface] of CONDITIONS)
      await call("POST", `${C}/conditions`, { condition_type: type, tooth_number: tooth, ...(surface ? { surface } : {}) });
    const today = new Date().toISOString().slice(0, 10);
    const json = await call("GET", `${C}/chart/at-date?date=${today}`);
    const svg = await (await fetch(`${srv.base}${P}${C}/chart.svg`, { headers: auth })).text();
    console.log(
      `(v1, v2) a full chart: ${json.tooth_statuses.length} teeth, ${json.charted_procedures.length} procedures, ${json.patient_conditions.length} conditions; JSON ${JSON.stringify(json).length} bytes, SVG ${svg.length} bytes`,
    );
    await ctx.measure(
      srv,
      "v1",
      "(v1) `GET .../chart/at-date` of a full adult chart (32 teeth, 43 procedures, 10 conditions), the chart's JSON, 50 connections",
      `${srv.base}${P}${C}/chart/at-date?date=${today}`,
      { headers: auth },
    );
    await ctx.measure(srv, "v2", "(v2) `GET .../chart.svg` of the same chart (drawn and audited), 50 connections", `${srv.base}${P}${C}/chart.svg`, {
      headers: auth,
    });
    return {
      notes: (view) => {
        const v1 = view.rows.find((r) => r.id === "v1");
        const v2 = view.rows.find((r) => r.id === "v2");
        if (!v1 || !v2) return [];
        return [
          `(v2) drawing the chart: ${(view.ratio(v1) / view.ratio(v2)).toFixed(2)}x the time of its JSON (v1) by throughput (the issue's bound: a few times).`,
        ];
      },
    };
  },
};
