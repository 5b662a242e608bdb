import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import sharp from "sharp";
import { auditOf, expectGuarded, type TestApp } from "@tests/helpers";
import { newLocation } from "@tests/domains/patients/relationships/fixtures";
import { MISSING, newPatient, ofPatient, toothChartApp, toothRows } from "@tests/domains/clinical/tooth-chart/fixtures";
import { todayUtc, addDays } from "@/platform/time/dates";
import { toothGeometry } from "@/domains/clinical/chart-pictures/tooth-geometry";
import { chromiumSkipReason, launchChromium, near, screenshotSvg } from "@tests/support/chromium";

const noBrowser = chromiumSkipReason("tests/domains/clinical/chart-pictures/chart-pictures.test.ts");

// The chart as a picture over HTTP (docs/clinical/chart-pictures.md): what
// each query draws, the files' headers, the audit of each picture, and every
// refusal. The drawing itself is tested in tooth-chart-svg / perio-chart-svg
// and, as a person sees it, in the *-pixels tests.

let t: TestApp;
let admin: string;
let orgA: string;
let orgB: string;
let reader: string;
type P = { id: string };
let pat: P, child: P, theirs: P;
let plan: string;
let examOld: string;
let examNew: string;
const codes: Record<string, string> = {};

async function raw(path: string, token = admin) {
  const res = await t.handle(new Request(`http://localhost${path}`, { headers: { authorization: `Bearer ${token}` } }));
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes, text: new TextDecoder().decode(bytes) };
}
const svgOf = (path: string) => raw(path).then((r) => r.text);
/** The tooth's group and its description, from an SVG. */
const toothGroup = (svg: string, tooth: string) => svg.match(new RegExp(`<g[^>]*data-tooth="${tooth}"[^>]*>[\\s\\S]*?</g>`))?.[0] ?? "";
const toothDesc = (svg: string, tooth: string) => toothGroup(svg, tooth).match(/<desc>([^<]*)<\/desc>/)?.[1] ?? "";

async function post(path: string, body: unknown, want = 201) {
  const r = await t.request("POST", path, { token: admin, body });
  if (r.status !== want) throw new Error(`POST ${path}: ${r.status} ${r.text}`);
  return r.body;
}
async function chart(pid: string, code: string, body: Record<string, unknown> = {}) {
  return post(ofPatient(orgA, pid, "/procedures"), { procedure_code_uuid: codes[code], ...body });
}

beforeAll(async () => {
  const w = await toothChartApp();
  ({ t, admin, orgA, orgB } = w);
  reader = w.tokens.reader;
  const loc = await newLocation(t, orgA);
  for (const code of ["D2160", "D2740", "D3330", "D6240", "D6750", "D7140", "D1110", "D4341"]) {
    const found = await t.request("GET", `/api/v1/${orgA}/codes/procedure-codes?search=${code}`, { token: admin });
    codes[code] = found.body.items.find((c: { code: string }) => c.code === code).id;
  }
  pat = await newPatient(t, orgA, { first_name: "Chartie", last_name: "Picture", date_of_birth: "1980-05-01", location_uuid: loc, chart_number: "CP-1" });
  child = await newPatient(t, orgA, { first_name: "Kid", last_name: "Teeth", date_of_birth: "2019-01-10", location_uuid: loc });
  theirs = await newPatient(t, orgB, { first_name: "Theo", last_name: "Theirs" });
  // planned MOD on 3; a completed crown on 14 (charted complete in the past); 30 missing; a planned bridge 19-21
  await chart(pat.id, "D2160", { tooth_number: "3", surfaces: "MOD" });
  await chart(pat.id, "D2740", { tooth_number: "14", status: "existing_current", date_service: "2020-02-02" });
  await chart(pat.id, "D4341", { quadrant: "UR" });
  await t.request("PUT", ofPatient(orgA, pat.id, "/tooth-statuses"), {
    token: admin,
    body: { tooth_number: "30", status: "missing", effective_date: "2024-06-01" },
  });
  const a = await chart(pat.id, "D6750", { tooth_number: "19" });
  const p = await chart(pat.id, "D6240", { tooth_number: "20" });
  const b = await chart(pat.id, "D6750", { tooth_number: "21" });
  await post(ofPatient(orgA, pat.id, "/spans"), {
    members: [
      { procedure_uuid: a.id, role: "abutment" },
      { procedure_uuid: p.id, role: "pontic" },
      { procedure_uuid: b.id, role: "abutment" },
    ],
  });
  await post(ofPatient(orgA, pat.id, "/conditions"), { condition_type: "caries", tooth_number: "2", surface: "O", date_identified: "2024-01-01" });
  plan = (await post(ofPatient(orgA, pat.id, "/treatment-plans"), { name: "Bridge first" })).id;
  await post(ofPatient(orgA, pat.id, `/treatment-plans/${plan}/procedures`), { procedure_uuid: a.id });
  // a child with primary teeth
  await post(ofPatient(orgA, child.id, "/tooth-statuses/seed"), { mode: "age_based" }, 200);
  const depths = (d: number) => ({ mb: 3, b: 2, db: d, ml: 3, l: 2, dl: 3 });
  examOld = (await post(ofPatient(orgA, pat.id, "/perio-exams"), { exam_date: "2025-01-10", teeth: [{ tooth_number: "3", pocket_depths: depths(3) }] })).id;
  examNew = (
    await post(ofPatient(orgA, pat.id, "/perio-exams"), {
      exam_date: "2025-07-10",
      teeth: [{ tooth_number: "3", pocket_depths: depths(6), bleeding_sites: ["db"] }],
    })
  ).id;
}, 60_000);
afterAll(() => t.close());

describe("GET .../chart.svg", () => {
  test("200: the whole chart, inline SVG with a policy that runs nothing; the same records give the same bytes", async () => {
    const r = await raw(ofPatient(orgA, pat.id, "/chart.svg"));
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("image/svg+xml; charset=utf-8");
    expect(r.headers.get("content-disposition")).toBe('inline; filename="chart-CP-1.svg"');
    expect(r.headers.get("cache-control")).toBe("private, no-store");
    expect(r.headers.get("content-security-policy")).toBe("default-src 'none'; style-src 'unsafe-inline'");
    expect(r.text).toStartWith("<svg");
    expect(r.text).toContain('<title id="chart-title">Tooth chart: Chartie Picture</title>');
    expect([...r.text.matchAll(/data-tooth="([^"]+)"/g)].map((m) => m[1])).toEqual(Array.from({ length: 32 }, (_, i) => String(i + 1)));
    expect(toothDesc(r.text, "3")).toContain("D2160");
    expect(toothDesc(r.text, "3")).toContain("MOD, planned");
    expect(toothDesc(r.text, "14")).toContain("D2740");
    expect(toothDesc(r.text, "14")).toContain("existing");
    expect(toothDesc(r.text, "30")).toContain("missing");
    expect(toothDesc(r.text, "2")).toContain("caries (O), condition");
    expect(r.text).toContain('data-span="19-21"');
    expect(r.text).toContain("D4341");
    // self-contained: the SVG namespace is the only address in it
    expect(r.text.replaceAll('xmlns="http://www.w3.org/2000/svg"', "")).not.toMatch(/https?:|url\(|<image|@font-face|<script|href/);
    const again = await raw(ofPatient(orgA, pat.id, "/chart.svg"));
    expect(createHash("sha256").update(again.bytes).digest("hex")).toBe(createHash("sha256").update(r.bytes).digest("hex"));
  });

  test("show=planned keeps planned work only; show=existing the existing crown only; conditions only with all", async () => {
    const planned = await svgOf(ofPatient(orgA, pat.id, "/chart.svg?show=planned"));
    expect(toothDesc(planned, "3")).toContain("D2160");
    expect(toothDesc(planned, "14")).not.toContain("D2740");
    expect(toothDesc(planned, "2")).not.toContain("caries");
    const existing = await svgOf(ofPatient(orgA, pat.id, "/chart.svg?show=existing"));
    expect(toothDesc(existing, "14")).toContain("D2740");
    expect(toothDesc(existing, "3")).not.toContain("D2160");
    expect(existing).not.toContain('data-span="19-21"');
    const completed = await svgOf(ofPatient(orgA, pat.id, "/chart.svg?show=completed"));
    expect(toothDesc(completed, "3")).not.toContain("D2160");
    expect(toothDesc(completed, "14")).not.toContain("D2740");
  });

  test("date: the chart as it was (tooth 30 present before it went missing; later work absent)", async () => {
    const then = await svgOf(ofPatient(orgA, pat.id, "/chart.svg?date=2024-03-01"));
    expect(toothDesc(then, "30")).not.toContain("missing");
    expect(toothDesc(then, "14")).toContain("D2740");
    expect(toothDesc(then, "3")).not.toContain("D2160");
    expect(toothDesc(then, "2")).toContain("caries");
    expect(then).toContain("as of 2024-03-01");
  });

  test("treatment_plan_uuid: only that plan's procedures, no conditions", async () => {
    const svg = await svgOf(ofPatient(orgA, pat.id, `/chart.svg?treatment_plan_uuid=${plan}`));
    expect(toothDesc(svg, "19")).toContain("D6750");
    expect(toothDesc(svg, "3")).not.toContain("D2160");
    expect(toothDesc(svg, "2")).not.toContain("caries");
    expect(svg).toContain("treatment plan Bridge first");
  });

  test("a plan without procedures still renders: an empty chart and a note", async () => {
    const empty = (await post(ofPatient(orgA, pat.id, "/treatment-plans"), { name: "Nothing yet" })).id;
    const svg = await svgOf(ofPatient(orgA, pat.id, `/chart.svg?treatment_plan_uuid=${empty}`));
    expect(svg).toContain("This treatment plan has no procedures.");
    expect(toothDesc(svg, "3")).not.toContain("D2160");
  });

  test("a child's chart draws the primary teeth too", async () => {
    const svg = await svgOf(ofPatient(orgA, child.id, "/chart.svg"));
    const teeth = [...svg.matchAll(/data-tooth="([^"]+)"/g)].map((m) => m[1]);
    expect(teeth.length).toBe(52);
    expect(teeth.slice(32)).toEqual(Array.from({ length: 20 }, (_, i) => String.fromCharCode(65 + i)));
  });

  test("numbering=fdi labels the teeth in FDI; the org setting is the default", async () => {
    const fdi = await svgOf(ofPatient(orgA, pat.id, "/chart.svg?numbering=fdi"));
    expect(toothGroup(fdi, "1")).toContain('data-label="18"');
    expect(toothGroup(fdi, "32")).toContain('data-label="48"');
    const universal = await svgOf(ofPatient(orgA, pat.id, "/chart.svg"));
    expect(toothGroup(universal, "1")).toContain('data-label="1"');
    const set = await t.request("PATCH", `/api/v1/${orgA}/odontogram/settings`, { token: admin, body: { base_version: 0, tooth_numbering: "fdi" } });
    expect(set.status).toBe(200);
    try {
      expect(toothGroup(await svgOf(ofPatient(orgA, pat.id, "/chart.svg")), "1")).toContain('data-label="18"');
      expect(toothGroup(await svgOf(ofPatient(orgA, pat.id, "/chart.svg?numbering=universal")), "1")).toContain('data-label="1"');
    } finally {
      await t.request("PATCH", `/api/v1/${orgA}/odontogram/settings`, { token: admin, body: { base_version: set.body.version, tooth_numbering: "universal" } });
    }
  });

  test("each picture is audited as patient.chart_rendered, with what was asked", async () => {
    await raw(ofPatient(orgA, pat.id, `/chart.svg?show=planned&date=2025-01-01`));
    const rows = (await auditOf(t, orgA, pat.id)).filter((a: { action: string }) => a.action === "patient.chart_rendered");
    const last = rows.at(-1) as { after: Record<string, unknown> };
    expect(last.after).toMatchObject({ format: "svg", date: "2025-01-01", show: "planned", treatment_plan_id: null, numbering: "universal" });
  });

  test("422 naming the parameter: unknown show, bad or out-of-range date, unknown parameter; nothing audited", async () => {
    const before = (await auditOf(t, orgA, pat.id)).length;
    const cases: [string, string][] = [
      ["show=everything", "show"],
      ["date=2025-02-30", "date"],
      ["date=1979-12-31", "date"],
      [`date=${addDays(todayUtc(), 3)}`, "date"],
      ["numbering=palmer", "numbering"],
      ["colour=red", "colour"],
      ["treatment_plan_uuid=nope", "treatment_plan_uuid"],
    ];
    for (const [q, param] of cases) {
      const r = await t.request("GET", ofPatient(orgA, pat.id, `/chart.svg?${q}`), { token: admin });
      expect({ q, status: r.status }).toEqual({ q, status: 422 });
      expect(r.body.detail.map((d: { loc: string[] }) => d.loc.at(-1))).toContain(param);
    }
    const birth = await t.request("GET", ofPatient(orgA, pat.id, "/chart.svg?date=1979-12-31"), { token: admin });
    expect(birth.body.code).toBe("date_before_birth");
    const future = await t.request("GET", ofPatient(orgA, pat.id, `/chart.svg?date=${addDays(todayUtc(), 3)}`), { token: admin });
    expect(future.body.code).toBe("date_in_future");
    expect((await auditOf(t, orgA, pat.id)).length).toBe(before);
  });

  test("404: unknown patient, another org's patient, unknown plan, another patient's plan; the guard", async () => {
    expect((await t.request("GET", ofPatient(orgA, MISSING, "/chart.svg"), { token: admin })).status).toBe(404);
    expect((await t.request("GET", ofPatient(orgA, theirs.id, "/chart.svg"), { token: admin })).status).toBe(404);
    expect((await t.request("GET", ofPatient(orgA, pat.id, `/chart.svg?treatment_plan_uuid=${MISSING}`), { token: admin })).status).toBe(404);
    const childPlan = (await post(ofPatient(orgA, child.id, "/treatment-plans"), { name: "Sealants" })).id;
    const wrong = await t.request("GET", ofPatient(orgA, pat.id, `/chart.svg?treatment_plan_uuid=${childPlan}`), { token: admin });
    expect(wrong.status).toBe(404);
    expect(wrong.body.detail ?? wrong.body.message).toBeTruthy();
    const holder = await expectGuarded(t, orgA, orgB, "GET", ofPatient(orgA, pat.id, "/chart.svg"), "clinical.read");
    expect((await raw(ofPatient(orgA, pat.id, "/chart.svg"), holder)).status).toBe(200);
    expect((await raw(ofPatient(orgA, pat.id, "/chart.svg"), reader)).status).toBe(200);
  });
});

describe("GET .../chart.png", () => {
  test("200: a PNG of the width asked (default 1200), the same picture as the SVG", async () => {
    const r = await raw(ofPatient(orgA, pat.id, "/chart.png?width=800"));
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("image/png");
    expect(r.headers.get("content-disposition")).toBe('inline; filename="chart-CP-1.png"');
    const meta = await sharp(r.bytes).metadata();
    expect(meta.format).toBe("png");
    expect(meta.width).toBe(800);
    const wide = await sharp((await raw(ofPatient(orgA, pat.id, "/chart.png"))).bytes).metadata();
    expect(wide.width).toBe(1200);
    expect(wide.height! / wide.width!).toBeCloseTo(meta.height! / meta.width!, 2);
    // red (planned) pixels exist: the MOD on 3 and the bridge are drawn
    const { data, info } = await sharp(r.bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    let red = 0;
    for (let i = 0; i < info.width * info.height * 3; i += 3) if (data[i]! > 180 && data[i + 1]! < 90 && data[i + 2]! < 90) red++;
    expect(red).toBeGreaterThan(100);
  });

  test("422 for a width out of range or not a number; 404 as the SVG", async () => {
    for (const w of ["399", "2401", "wide", "1000.5"]) {
      const r = await t.request("GET", ofPatient(orgA, pat.id, `/chart.png?width=${w}`), { token: admin });
      expect({ w, status: r.status }).toEqual({ w, status: 422 });
      expect(r.body.detail[0].loc).toEqual(["query", "width"]);
    }
    expect((await t.request("GET", ofPatient(orgA, theirs.id, "/chart.png"), { token: admin })).status).toBe(404);
    await expectGuarded(t, orgA, orgB, "GET", ofPatient(orgA, pat.id, "/chart.png"), "clinical.read");
  });
});

describe("GET .../perio-exams/:exam_uuid/chart.svg and .png", () => {
  test("200: the exam's picture, a 6 mm pocket highlighted; compare_to marks the change", async () => {
    const r = await raw(ofPatient(orgA, pat.id, `/perio-exams/${examNew}/chart.svg`));
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("image/svg+xml; charset=utf-8");
    expect(r.text).toContain("exam of 2025-07-10");
    expect(r.text).toMatch(/data-site="db"[^>]*data-depth="6"|data-depth="6"[^>]*data-site="db"/);
    expect(r.text).not.toContain("+3");
    const compared = await svgOf(ofPatient(orgA, pat.id, `/perio-exams/${examNew}/chart.svg?compare_to=${examOld}`));
    expect(compared).toContain("+3");
    expect(compared).toContain("2025-01-10");
    const png = await raw(ofPatient(orgA, pat.id, `/perio-exams/${examNew}/chart.png?width=600`));
    expect(png.status).toBe(200);
    expect((await sharp(png.bytes).metadata()).width).toBe(600);
    const audits = (await auditOf(t, orgA, examNew)).filter((a: { action: string }) => a.action === "perio_exam.chart_rendered");
    expect(audits.length).toBe(3);
  });

  test("404: unknown exam, another patient's exam, an unknown compare_to; 422: bad compare_to, width; the guard", async () => {
    expect((await t.request("GET", ofPatient(orgA, pat.id, `/perio-exams/${MISSING}/chart.svg`), { token: admin })).status).toBe(404);
    expect((await t.request("GET", ofPatient(orgA, child.id, `/perio-exams/${examNew}/chart.svg`), { token: admin })).status).toBe(404);
    expect((await t.request("GET", ofPatient(orgA, pat.id, `/perio-exams/${examNew}/chart.svg?compare_to=${MISSING}`), { token: admin })).status).toBe(404);
    const bad = await t.request("GET", ofPatient(orgA, pat.id, `/perio-exams/${examNew}/chart.svg?compare_to=x`), { token: admin });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(["query", "compare_to"]);
    expect((await t.request("GET", ofPatient(orgA, pat.id, `/perio-exams/${examNew}/chart.png?width=50`), { token: admin })).status).toBe(422);
    await expectGuarded(t, orgA, orgB, "GET", ofPatient(orgA, pat.id, `/perio-exams/${examNew}/chart.svg`), "clinical.read");
    await expectGuarded(t, orgA, orgB, "GET", ofPatient(orgA, pat.id, `/perio-exams/${examNew}/chart.png`), "clinical.read");
  });

  test("reading pictures changes no chart record", async () => {
    const before = await toothRows(t, orgA);
    await raw(ofPatient(orgA, pat.id, "/chart.svg"));
    await raw(ofPatient(orgA, pat.id, `/perio-exams/${examNew}/chart.svg`));
    expect(await toothRows(t, orgA)).toEqual(before);
  });
});

describe("the endpoint's picture as a person sees it (Chromium)", () => {
  test.skipIf(!!noBrowser)(
    "the planned MOD on 3 is red on M, O and D, white on B and L; missing 30 is not drawn as a tooth; the bridge 19-21 is joined",
    async () => {
      const svg = await svgOf(ofPatient(orgA, pat.id, "/chart.svg"));
      const browser = await launchChromium();
      try {
        const shot = await screenshotSvg(browser, svg);
        const t3 = toothGeometry("3", false).surfaces;
        for (const s of ["M", "O", "D"] as const) expect({ s, red: near(shot.rgb(t3[s].x, t3[s].y), "#d32f2f") }).toEqual({ s, red: true });
        for (const s of ["B", "L"] as const) expect({ s, white: near(shot.rgb(t3[s].x, t3[s].y), "#ffffff") }).toEqual({ s, white: true });
        const t30 = toothGeometry("30", false);
        const t31 = toothGeometry("31", false);
        expect(near(shot.rgb(t30.surfaces.O.x, t30.surfaces.O.y), "#ffffff")).toBe(true);
        expect(near(shot.rgb(t30.root.x, t30.root.y), "#ffffff")).toBe(true);
        expect(near(shot.rgb(t31.root.x, t31.root.y), "#ffffff")).toBe(false);
        const t20 = toothGeometry("20", false).surfaces.O;
        expect(near(shot.rgb(t20.x, t20.y), "#d32f2f")).toBe(true);
      } finally {
        await browser.close();
      }
    },
    30_000,
  );
});
