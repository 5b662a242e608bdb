import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import type { PerioChartPicture, PerioChartTooth, PerioExamPicture, PerioSite } from "@/domains/clinical/chart-pictures/model";
import { perioChartSize, renderPerioChartSvg, siteBar, siteDot } from "@/domains/clinical/chart-pictures/perio-chart-svg";
import { DEPTHS, perioTooth } from "@tests/domains/clinical/chart-pictures/fixtures";
import { PX_PER_MM } from "@/domains/clinical/chart-pictures/perio-geometry";

// The perio chart's SVG as text: what is drawn for which data, and that the
// same picture always gives the same bytes. What it looks like is checked in
// perio-chart-pixels.test.ts.

const tooth = perioTooth;

/** 1, 16 and 32 absent; 17 present but not probed; everything else 3 2 3 / 3 2 3 unless below. */
const PROBED = Array.from({ length: 32 }, (_, i) => String(i + 1)).filter((n) => !["1", "16", "17", "32"].includes(n));

const NOW: Record<string, Partial<PerioChartTooth>> = {
  "3": {
    pocket_depths: { mb: 4, b: 2, db: 6, ml: 3, l: 3, dl: 5 },
    recession: { mb: 1, b: 0, db: 2, ml: 0, l: 0, dl: 1 },
    bleeding_sites: ["b", "db"],
    suppuration_sites: ["db"],
    plaque_sites: ["mb"],
    mobility: 1,
    furcation: 2,
  },
  "14": { pocket_depths: { ...DEPTHS, b: 4 } },
  "19": { pocket_depths: { ...DEPTHS, db: 7, dl: 4 }, bleeding_sites: ["db", "dl"], furcation: 1 },
};
const BEFORE: Record<string, Partial<PerioChartTooth>> = {
  "3": { pocket_depths: { mb: 4, b: 2, db: 4, ml: 3, l: 3, dl: 3 } },
  "14": { pocket_depths: { ...DEPTHS, b: 6 } },
  "19": { pocket_depths: { ...DEPTHS, db: 6, dl: 4 } },
};

const exam = (date: string, changes: Record<string, Partial<PerioChartTooth>>): PerioExamPicture => ({
  exam_date: date,
  teeth: PROBED.map((n) => tooth(n, changes[n] ?? {})),
});

function picture(o: Partial<PerioChartPicture> = {}): PerioChartPicture {
  return {
    title: "Perio chart: Jane Doe, 2026-05-01",
    numbering: "universal",
    exam: exam("2026-05-01", NOW),
    compare_to: null,
    absent_teeth: ["1", "16", "32"],
    ...o,
  };
}
const compared = (): PerioChartPicture => picture({ compare_to: exam("2025-11-03", BEFORE) });

/** The tooth's group (groups hold no nested <g>). */
function group(svg: string, n: string): string {
  const found = svg.match(new RegExp(`<g data-tooth="${n}"[^>]*>[\\s\\S]*?</g>`));
  if (!found) throw new Error(`no group for tooth ${n}`);
  return found[0];
}

function attributes(element: string): Record<string, string> {
  return Object.fromEntries([...element.matchAll(/([\w-]+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
}

function elements(svg: string, tag: string, cls: string): Record<string, string>[] {
  return [...svg.matchAll(new RegExp(`<${tag} class="${cls}"[^>]*>`, "g"))].map((m) => attributes(m[0]));
}

const bar = (svg: string, n: string, site: PerioSite) => {
  const found = elements(group(svg, n), "rect", "pd-bar").filter((b) => b["data-site"] === site);
  expect(found).toHaveLength(1);
  return found[0]!;
};

/** The text of the tooth's <text class="cls" data-site="site">, or null. */
const siteText = (svg: string, n: string, cls: string, site: PerioSite): string | null =>
  group(svg, n).match(new RegExp(`<text class="${cls}" data-site="${site}"[^>]*>([^<]*)</text>`))?.[1] ?? null;

describe("perio chart SVG", () => {
  test("the root element, title and description", () => {
    const svg = renderPerioChartSvg(picture());
    const { width, height } = perioChartSize(picture());
    expect([width, height]).toEqual([868, 884]);
    expect(svg.split("\n")[0]).toBe(
      `<svg xmlns="http://www.w3.org/2000/svg" width="868" height="884" viewBox="0 0 868 884" role="img" aria-labelledby="perio-title perio-desc" font-family="DejaVu Sans, Arial, Helvetica, sans-serif">`,
    );
    expect(svg).toContain(`<title id="perio-title">Perio chart: Jane Doe, 2026-05-01</title>`);
    expect(svg).toContain(
      `<desc id="perio-desc">Periodontal chart, exam 2026-05-01. 28 teeth probed, 168 sites: 6 at 4 mm or more, 2 at 6 mm or more; bleeding at 4 sites (2.4%). Absent: 1, 16, 32.</desc>`,
    );
    expect(svg.endsWith("</svg>")).toBe(true);
  });

  test("one group per tooth, 1 to 32, with its label and state", () => {
    const svg = renderPerioChartSvg(picture());
    const groups = [...svg.matchAll(/<g data-tooth="(\d+)" data-label="([^"]*)" data-state="([a-z-]+)">/g)].map((m) => [m[1], m[2], m[3]]);
    expect(groups).toHaveLength(32);
    expect(groups.map((g) => g[0])).toEqual(Array.from({ length: 32 }, (_, i) => String(i + 1)));
    expect(groups.filter((g) => g[2] === "absent").map((g) => g[0])).toEqual(["1", "16", "32"]);
    expect(groups.filter((g) => g[2] === "not-probed").map((g) => g[0])).toEqual(["17"]);
    expect(elements(svg, "rect", "pd-bar")).toHaveLength(28 * 6);
  });

  test("bars: colour by depth, length depth × px per mm from the margin toward the root", () => {
    const svg = renderPerioChartSvg(picture());
    const deep = bar(svg, "3", "db");
    expect(deep).toMatchObject({ "data-depth": "6", fill: "#c62828", width: "8", height: String(6 * PX_PER_MM) });
    const at = siteBar("3", "db");
    expect(at.mmPx).toBe(-PX_PER_MM); // upper teeth: toward the root is up
    expect(Number(deep.y)).toBe(at.y0 - 6 * PX_PER_MM);
    expect(Number(deep.x)).toBe(at.x - at.width / 2);
    expect(bar(svg, "3", "mb")).toMatchObject({ "data-depth": "4", fill: "#f57c00", height: String(4 * PX_PER_MM) });
    expect(bar(svg, "3", "dl")).toMatchObject({ "data-depth": "5", fill: "#f57c00" });
    expect(bar(svg, "3", "ml")).toMatchObject({ "data-depth": "3", fill: "#607d8b", height: String(3 * PX_PER_MM) });
    const lower = bar(svg, "19", "db");
    expect(lower).toMatchObject({ "data-depth": "7", fill: "#c62828", height: String(7 * PX_PER_MM) });
    expect(siteBar("19", "db").mmPx).toBe(PX_PER_MM); // lower teeth: down
    expect(Number(lower.y)).toBe(siteBar("19", "db").y0);
  });

  test("sites are ordered mesial toward the midline; facial and lingual in their own bands", () => {
    const x = (n: string, s: PerioSite) => siteBar(n, s).x;
    expect(x("3", "db")).toBeLessThan(x("3", "b"));
    expect(x("3", "b")).toBeLessThan(x("3", "mb"));
    expect(x("14", "mb")).toBeLessThan(x("14", "db"));
    expect(x("19", "ml")).toBeLessThan(x("19", "dl"));
    expect(x("30", "dl")).toBeLessThan(x("30", "ml"));
    expect(x("3", "mb")).toBe(x("3", "ml"));
    expect(x("30", "b")).toBe(x("3", "b")); // 30 sits under 3
    expect(siteBar("3", "b").y0).toBeLessThan(siteBar("3", "l").y0);
    expect(siteBar("3", "l").y0).toBeLessThan(siteBar("30", "l").y0);
    expect(siteBar("30", "l").y0).toBeLessThan(siteBar("30", "b").y0);
  });

  test("depth numbers: three per side, bold red from 4 mm", () => {
    const svg = renderPerioChartSvg(picture());
    expect(group(svg, "3")).toMatch(/<text class="pd-number" data-site="db" [^>]*font-weight="bold" text-anchor="middle" fill="#c62828">6<\/text>/);
    expect(group(svg, "3")).toMatch(/<text class="pd-number" data-site="b" [^>]*text-anchor="middle" fill="#212121">2<\/text>/);
    expect(group(svg, "3").match(/class="pd-number"/g)).toHaveLength(6);
  });

  test("bleeding, suppuration and plaque dots at their site, each kind in its own place", () => {
    const svg = renderPerioChartSvg(picture());
    const three = group(svg, "3");
    const bleeding = elements(three, "circle", "bleeding");
    expect(bleeding.map((c) => c["data-site"])).toEqual(["db", "b"]);
    const dot = siteDot("3", "b", "bleeding");
    expect(bleeding[1]).toMatchObject({ cx: String(dot.x), cy: String(dot.y), r: "3", fill: "#d32f2f" });
    expect(elements(three, "circle", "suppuration")).toEqual([
      { class: "suppuration", "data-site": "db", ...xy(siteDot("3", "db", "suppuration")), r: "3", fill: "#fbc02d" },
    ]);
    expect(elements(three, "circle", "plaque")).toEqual([
      { class: "plaque", "data-site": "mb", ...xy(siteDot("3", "mb", "plaque")), r: "2.5", fill: "#455a64" },
    ]);
    expect(new Set(["bleeding", "suppuration", "plaque"].map((k) => siteDot("3", "db", k as "plaque").y)).size).toBe(3);
    expect(elements(group(svg, "4"), "circle", "bleeding")).toEqual([]);
  });

  test("absent and unprobed teeth: greyed and crossed out, no bars", () => {
    const svg = renderPerioChartSvg(picture());
    for (const n of ["1", "16", "17", "32"]) {
      const g = group(svg, n);
      expect(g).not.toContain("pd-bar");
      expect(g).not.toContain("<circle");
      expect(g.match(/class="not-probed"/g)).toHaveLength(2);
      expect(g.match(/<line /g)).toHaveLength(4);
    }
    expect(group(svg, "1")).toContain("<desc>Tooth 1: absent.</desc>");
    expect(group(svg, "17")).toContain("<desc>Tooth 17: not probed.</desc>");
    // Charted absent wins over a stray measurement.
    const stray = renderPerioChartSvg(picture({ absent_teeth: ["1", "2", "16", "32"] }));
    expect(group(stray, "2")).not.toContain("pd-bar");
  });

  test("header: label, mobility and furcation", () => {
    const svg = renderPerioChartSvg(picture());
    expect(group(svg, "3")).toMatch(/font-size="9" text-anchor="middle" fill="#546e7a">M1 F2<\/text>/);
    expect(group(svg, "19")).toMatch(/>F1<\/text>/);
    expect(group(svg, "4")).not.toMatch(/>M\d|>F\d/);
  });

  test("recession: a line that many mm crownward of the margin", () => {
    const svg = renderPerioChartSvg(picture());
    const lines = elements(group(svg, "3"), "polyline", "recession");
    expect(lines.map((l) => l["data-recession"])).toEqual(["db:2 b:0 mb:1", "dl:1 l:0 ml:0"]);
    const { x, y0 } = siteBar("3", "db");
    expect(lines[0]!.points).toContain(`${x},${y0 + 2 * PX_PER_MM}`);
    expect(lines[0]!.stroke).toBe("#1565c0");
    expect(group(svg, "4")).not.toContain("recession");
  });

  test("the tooth's description", () => {
    const svg = renderPerioChartSvg(compared());
    expect(group(svg, "3")).toContain(
      "<desc>Tooth 3: facial 4 2 6 (MB 4 mm, DB 6 mm), lingual 3 3 5 (DL 5 mm); recession 1 0 2 facial, 0 0 1 lingual; bleeding at B, DB; suppuration at DB; plaque at MB; mobility 1; furcation 2; earlier facial 4 2 4 (MB 4 mm, DB 4 mm), lingual 3 3 3; changed 2 mm or more at DB +2, DL +2.</desc>",
    );
    expect(group(svg, "4")).toContain("<desc>Tooth 4: facial 3 2 3, lingual 3 2 3; earlier facial 3 2 3, lingual 3 2 3.</desc>");
  });

  test("compare_to: earlier outlines, changes of 2 mm or more marked, both dates stated", () => {
    const svg = renderPerioChartSvg(compared());
    expect(siteText(svg, "3", "pd-change", "db")).toBe("+2"); // 4 then 6
    expect(siteText(svg, "3", "pd-change", "dl")).toBe("+2"); // 3 then 5
    expect(siteText(svg, "14", "pd-change", "b")).toBe("-2"); // 6 then 4
    expect(siteText(svg, "19", "pd-change", "db")).toBeNull(); // 6 then 7
    expect(siteText(svg, "3", "pd-change", "mb")).toBeNull();
    expect(svg.match(/class="pd-change"/g)).toHaveLength(3);
    expect(group(svg, "3")).toMatch(/class="pd-change" data-site="db" [^>]*fill="#c62828">\+2</);
    expect(group(svg, "14")).toMatch(/class="pd-change" data-site="b" [^>]*fill="#2e7d32">-2</);
    const outline = elements(group(svg, "14"), "rect", "pd-earlier").find((r) => r["data-site"] === "b");
    expect(outline).toMatchObject({ "data-depth-earlier": "6", height: String(6 * PX_PER_MM), fill: "none", stroke: "#424242", "stroke-dasharray": "3 2" });
    expect(elements(svg, "rect", "pd-earlier")).toHaveLength(28 * 6);
    expect(svg).toContain(">Exam 2026-05-01 compared with 2025-11-03</text>");
    expect(svg).toContain(">Earlier exam 2025-11-03</text>");
    expect(svg).toContain("Since 2025-11-03: 2 deeper, 1 shallower by ≥ 2 mm");

    const plain = renderPerioChartSvg(picture());
    expect(plain).not.toContain("pd-earlier");
    expect(plain).not.toContain("pd-change");
    expect(plain).not.toContain("compared with");
    expect(plain).toContain(">Exam 2026-05-01</text>");
  });

  test("a tooth the earlier exam did not probe has no outline", () => {
    const earlier = exam("2025-11-03", BEFORE);
    earlier.teeth = earlier.teeth.filter((t) => t.tooth !== "4");
    const svg = renderPerioChartSvg(picture({ compare_to: earlier }));
    expect(group(svg, "4")).not.toContain("pd-earlier");
    expect(group(svg, "4")).toContain("not in the earlier exam");
    expect(elements(svg, "rect", "pd-earlier")).toHaveLength(27 * 6);
  });

  test("legend and summary line", () => {
    const svg = renderPerioChartSvg(picture());
    for (const label of ["Pocket &lt; 4 mm", "4–5 mm", "≥ 6 mm", "Recession", "Bleeding", "Suppuration", "Plaque", "Absent or not probed"]) {
      expect(svg).toContain(`>${label}</text>`);
    }
    expect(svg).not.toContain("Earlier exam");
    expect(svg).toContain(">Sites ≥ 4 mm: 6  ·  Sites ≥ 6 mm: 2  ·  Bleeding on probing: 2.4% (4 of 168 sites)</text>");
  });

  test("FDI labels, also for teeth not in the exam", () => {
    const p = picture({ numbering: "fdi" });
    p.exam.teeth = p.exam.teeth.map((t) => (t.tooth === "3" ? { ...t, label: "16" } : t));
    const svg = renderPerioChartSvg(p);
    expect(group(svg, "3")).toContain(`data-label="16"`);
    expect(group(svg, "3")).toContain("<desc>Tooth 16: ");
    expect(group(svg, "1")).toContain(`data-label="18"`);
    expect(group(svg, "17")).toContain(`data-label="38"`);
  });

  test("text is escaped", () => {
    const svg = renderPerioChartSvg(picture({ title: `Perio: "Jo" <script>&'` }));
    expect(svg).toContain(`<title id="perio-title">Perio: &quot;Jo&quot; &lt;script&gt;&amp;&#39;</title>`);
    expect(svg).not.toContain("<script>");
  });

  test("self-contained: no external references, numbers with at most two decimals", () => {
    const svg = renderPerioChartSvg(compared());
    expect(svg.replace('xmlns="http://www.w3.org/2000/svg"', "")).not.toMatch(/https?:|url\(|<image|@font-face|href/);
    const numeric = [...svg.matchAll(/ (?:x|y|x1|y1|x2|y2|cx|cy|r|width|height)="([^"]*)"/g)].map((m) => m[1]!);
    expect(numeric.length).toBeGreaterThan(1000);
    expect(numeric.filter((v) => !/^-?\d+(\.\d{1,2})?$/.test(v))).toEqual([]);
  });

  test("the same picture gives the same bytes", () => {
    const svg = renderPerioChartSvg(compared());
    expect(renderPerioChartSvg(compared())).toBe(svg);
    // The parts first, so a change shows where it is; then the bytes.
    const classes = [...svg.matchAll(/ class="([a-z-]+)"/g)].map((m) => m[1]!);
    const byClass = Object.fromEntries([...new Set(classes)].sort().map((c) => [c, classes.filter((x) => x === c).length]));
    expect(byClass).toEqual({
      bleeding: 4,
      "not-probed": 8,
      "pd-bar": 168,
      "pd-change": 3,
      "pd-earlier": 168,
      "pd-number": 168,
      plaque: 1,
      recession: 2,
      suppuration: 1,
    });
    const tags = [...svg.matchAll(/<([a-z]+)[ >]/g)].map((m) => m[1]!);
    const byTag = Object.fromEntries([...new Set(tags)].sort().map((t) => [t, tags.filter((x) => x === t).length]));
    expect(byTag).toEqual({ circle: 9, desc: 33, g: 32, line: 58, polyline: 2, rect: 350, svg: 1, text: 248, title: 1 });
    expect(svg.length).toBe(86470);
    // Checked by eye (rendered to PNG with sharp); when this changes, look at the drawing again before updating it.
    expect(createHash("sha256").update(svg).digest("hex")).toBe("14d42dae33ce4699e8aef498eb01ad76e63728c694cf8275f2e84282bbf4da80");
  });
});

function xy(p: { x: number; y: number }): { cx: string; cy: string } {
  return { cx: String(p.x), cy: String(p.y) };
}
