import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import sharp from "sharp";
import type { MarkKind, MarkStatus, ToothMark } from "@/domains/clinical/chart-pictures/model";
import { PERMANENT, PRIMARY, toothPicture } from "@tests/domains/clinical/chart-pictures/fixtures";
import { renderToothChartSvg, toothChartSize } from "@/domains/clinical/chart-pictures/tooth-chart-svg";
import { spanConnectorPoint, toothGeometry } from "@/domains/clinical/chart-pictures/tooth-geometry";

const RED = "#d32f2f";
const BLUE = "#1565c0";

const picture = toothPicture;

const mark = (kind: MarkKind, status: MarkStatus, surfaces: ToothMark["surfaces"] = [], text = `${kind}, ${status}`): ToothMark => ({
  kind,
  status,
  surfaces,
  text,
});

/** A full picture that uses every shape, mark kind, a span, the elsewhere list and a note. */
const FULL = picture(
  {
    primary_row: true,
    spans: [{ teeth: ["3", "4", "5"], status: "planned", text: "D6240 pontic, D6750 crowns: bridge 3-5, planned" }],
    elsewhere: [
      { status: "planned", text: "D4341 scaling and root planing, UR quadrant, planned" },
      { status: "completed", text: "D1110 prophylaxis, completed" },
    ],
    note: "Charted at the new-patient exam.",
  },
  {
    "1": { shape: "absent", status_text: "missing" },
    "3": { marks: [mark("surfaces", "planned", ["M", "O", "D"], "D2160 amalgam, three surfaces (MOD), planned")] },
    "4": { shape: "absent", status_text: "missing", marks: [mark("pontic", "planned")] },
    "5": { marks: [mark("crown", "planned")] },
    "7": { marks: [mark("root_canal", "completed"), mark("post", "completed"), mark("crown", "completed")] },
    "8": { marks: [mark("fracture", "condition"), mark("watch", "condition")] },
    "9": { marks: [mark("periapical", "condition")] },
    "10": { shape: "absent", marks: [mark("implant", "existing")] },
    "12": { marks: [mark("extraction", "planned")] },
    "14": { marks: [mark("crown", "completed")] },
    "16": { shape: "unerupted", status_text: "impacted" },
    "17": { shape: "root_only", status_text: "root tip" },
    "30": { marks: [mark("surfaces", "referred", ["D", "L"]), mark("other", "referred", [], "D9310 consultation, referred")] },
    B: { marks: [mark("surfaces", "existing", ["O"])] },
    K: { shape: "absent" },
  },
);

/** Each tooth's group, by Universal number, in document order. */
function toothGroups(svg: string): [string, string][] {
  const start = svg.indexOf("<g data-tooth=");
  const end = svg.search(/<g data-part="(note|legend)"/);
  return svg
    .slice(start, end)
    .split(/(?=<g data-tooth=)/)
    .map((group) => [/^<g data-tooth="([^"]*)"/.exec(group)?.[1] ?? "?", group]);
}
const groupOf = (svg: string, tooth: string): string => toothGroups(svg).find(([t]) => t === tooth)?.[1] ?? "";
const attr = (element: string, name: string): string | null => new RegExp(` ${name}="([^"]*)"`).exec(element)?.[1] ?? null;
const surfaceFill = (group: string, surface: string): string | null =>
  attr(new RegExp(`<polygon data-surface="${surface}"[^>]*>`).exec(group)?.[0] ?? "", "fill");
const count = (text: string, needle: string): number => text.split(needle).length - 1;
const markGroup = (group: string, kind: string): string => new RegExp(`<g data-mark="${kind}"[^>]*>.*?</g>`).exec(group)?.[0] ?? "";

describe("the document", () => {
  test("one group per tooth, in the picture's chart order: 32, or 52 with the primary row", () => {
    expect(toothGroups(renderToothChartSvg(picture())).map(([t]) => t)).toEqual(PERMANENT);
    const mixed = renderToothChartSvg(picture({ primary_row: true }));
    expect(count(mixed, "<g data-tooth=")).toBe(52);
    expect(toothGroups(mixed).map(([t]) => t)).toEqual([...PERMANENT, ...PRIMARY]);
  });

  test("the root element, title and description", () => {
    const svg = renderToothChartSvg(picture());
    expect(
      svg.startsWith(
        '<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="350" viewBox="0 0 1000 350" role="img" aria-labelledby="chart-title chart-desc" font-family="DejaVu Sans, Arial, Helvetica, sans-serif">',
      ),
    ).toBe(true);
    expect(svg).toContain('<title id="chart-title">Tooth chart: Jane Doe, 2026-11-29</title>');
    expect(svg).toContain('<desc id="chart-desc">32 permanent teeth, Universal numbering; nothing charted on the teeth.</desc>');
    expect(svg.endsWith("</svg>")).toBe(true);
    expect(toothChartSize(picture())).toEqual({ width: 1000, height: 350 });
  });

  test("the description counts teeth, shapes, marks by status, spans, the elsewhere list, and ends with the note", () => {
    expect(renderToothChartSvg({ ...FULL, numbering: "fdi" })).toContain(
      '<desc id="chart-desc">32 permanent and 20 primary teeth, FDI numbering; 4 missing, 1 unerupted, 1 root only; ' +
        "marks on teeth: 4 planned, 4 completed, 2 existing, 2 referred, 3 condition; 1 bridge or splint; 2 items not on a single tooth. " +
        "Charted at the new-patient exam.</desc>",
    );
  });

  test("size grows with the primary row, the note and the elsewhere list, and matches the root element", () => {
    const sizes = [picture(), picture({ primary_row: true }), picture({ note: "x" }), FULL].map(toothChartSize);
    expect(sizes.map((s) => s.width)).toEqual([1000, 1000, 1000, 1000]);
    expect(sizes.map((s) => s.height)).toEqual([350, 598, 372, 674]);
    const svg = renderToothChartSvg(FULL);
    expect(attr(svg.slice(0, svg.indexOf(">")), "height")).toBe("674");
  });

  test("nothing outside the picture is referenced and no font is loaded", () => {
    const svg = renderToothChartSvg(FULL).replace(' xmlns="http://www.w3.org/2000/svg"', "");
    for (const banned of ["http", "url(", "<image", "@font-face", "href", "<style", "<script", "<foreignObject"]) expect(svg).not.toContain(banned);
  });

  test("deterministic: the same picture gives the same string, numbers have at most 2 decimals", () => {
    expect(renderToothChartSvg(FULL)).toBe(renderToothChartSvg(structuredClone(FULL)));
    expect(renderToothChartSvg(FULL)).not.toMatch(/\d\.\d{3}/);
    expect(renderToothChartSvg(FULL)).not.toContain("NaN");
  });

  test("well-formed: librsvg draws it at its size", async () => {
    const meta = await sharp(Buffer.from(renderToothChartSvg(FULL)))
      .png()
      .toBuffer({ resolveWithObject: true });
    expect([meta.info.width, meta.info.height]).toEqual([1000, 674]);
  });

  test("the full picture's bytes are unchanged (check the structural tests first when this fails)", () => {
    const svg = renderToothChartSvg(FULL);
    expect(svg.length).toBe(60117);
    expect(createHash("sha256").update(svg).digest("hex")).toBe("538f1870cd9203af55365d3a001dfae4b705cb2737c28214297b51c3bb5317bc");
  });

  test("the full picture's parts: marks, crosses, roots, span, legend, elsewhere, note", () => {
    const svg = renderToothChartSvg(FULL);
    const kinds = [...svg.matchAll(/<g data-mark="([a-z_]+)"/g)].map((m) => m[1]);
    expect(kinds).toEqual(["crown", "root_canal", "post", "crown", "fracture", "watch", "periapical", "implant", "extraction", "crown"]);
    expect(count(svg, 'data-part="absent-cross"')).toBe(2); // 1 and K; 4 (pontic) and 10 (implant) are replaced, not crossed
    expect(count(svg, 'data-part="absent-outline"')).toBe(4);
    expect(count(svg, 'data-part="root"')).toBe(52 - 4); // no root on the missing teeth
    expect(count(svg, 'data-part="faint-crown"')).toBe(1);
    expect(count(svg, "<g opacity=")).toBe(1);
    expect(count(svg, "<g data-span=")).toBe(1);
    expect(count(svg, "<polygon data-surface=")).toBe(52 * 5);
    expect([...svg.matchAll(/<rect [^>]*data-status="([a-z]+)"/g)].map((m) => m[1])).toEqual(["planned", "completed", "existing", "referred", "condition"]);
    expect(svg).toContain(">Planned</text>");
    expect(svg).toContain(">Condition</text>");
    expect(svg).toContain(">D1110 prophylaxis, completed</text>");
    expect(svg).toContain(">Charted at the new-patient exam.</text>");
    expect(count(svg, "<circle")).toBe(1 + 2); // the periapical ring, two bullets
  });
});

describe("teeth", () => {
  test("a planned MOD on tooth 3 fills M, O and D red; B and L stay white", () => {
    const group = groupOf(renderToothChartSvg(picture({}, { "3": { marks: [mark("surfaces", "planned", ["M", "O", "D"])] } })), "3");
    expect(["M", "O", "D", "B", "L"].map((s) => surfaceFill(group, s))).toEqual([RED, RED, RED, "#ffffff", "#ffffff"]);
  });

  test("surfaces are placed as a dentist expects: B outside, L inside, M towards the midline", () => {
    const at = (tooth: string, primary = false) => toothGeometry(tooth, primary).surfaces;
    const upperLeft = at("3");
    expect([upperLeft.B.y < upperLeft.O.y, upperLeft.L.y > upperLeft.O.y, upperLeft.M.x > upperLeft.O.x, upperLeft.D.x < upperLeft.O.x]).toEqual([
      true,
      true,
      true,
      true,
    ]);
    const upperRight = at("14");
    expect([upperRight.M.x < upperRight.O.x, upperRight.D.x > upperRight.O.x]).toEqual([true, true]);
    const lowerLeft = at("30");
    expect([lowerLeft.B.y > lowerLeft.O.y, lowerLeft.L.y < lowerLeft.O.y, lowerLeft.M.x > lowerLeft.O.x]).toEqual([true, true, true]);
    const lowerRight = at("19");
    expect([lowerRight.B.y > lowerRight.O.y, lowerRight.M.x < lowerRight.O.x]).toEqual([true, true]);
    expect([at("E", true).M.x > at("E", true).O.x, at("F", true).M.x < at("F", true).O.x, at("T", true).B.y > at("T", true).O.y]).toEqual([true, true, true]);
    expect(toothGeometry("3", false).root.y).toBeLessThan(toothGeometry("3", false).y); // upper roots point up
    expect(toothGeometry("30", false).root.y).toBeGreaterThan(toothGeometry("30", false).y + 48); // lower roots point down
  });

  test("the layout: 1 above 32, 16 above 17, 58 px apart, the primary row centred between the arches", () => {
    const g = (tooth: string, primary = false) => toothGeometry(tooth, primary);
    expect([g("1").x, g("1").y, g("1").width, g("1").height]).toEqual([41, 74, 48, 48]);
    expect([g("2").x - g("1").x, g("32").x, g("17").x, g("16").x]).toEqual([58, 41, 911, 911]);
    expect(g("32").y).toBeGreaterThan(g("1").y + 48);
    expect([g("A", true).x, g("J", true).x + g("J", true).width, g("A", true).width]).toEqual([174, 826, 40]);
    expect(g("1", true).y).toBeLessThan(g("A", true).y);
    expect(g("A", true).y).toBeLessThan(g("T", true).y);
    expect(g("T", true).y).toBeLessThan(g("32", true).y);
    expect(() => toothGeometry("A", false)).toThrow("not on the chart");
    expect(spanConnectorPoint("3", "4", false)).toEqual({ x: 210, y: 98 });
    expect(spanConnectorPoint("4", "3", false)).toEqual({ x: 210, y: 98 });
    expect(() => spanConnectorPoint("3", "5", false)).toThrow("not neighbours");
    expect(() => spanConnectorPoint("16", "17", false)).toThrow("not neighbours");
  });

  test("descriptions: status (or shape) then each mark's text", () => {
    const svg = renderToothChartSvg(FULL);
    expect(groupOf(svg, "2")).toContain("<desc>Tooth 2: present, nothing charted.</desc>");
    expect(groupOf(svg, "3")).toContain("<desc>Tooth 3: present. D2160 amalgam, three surfaces (MOD), planned.</desc>");
    expect(groupOf(svg, "17")).toContain("<desc>Tooth 17: root tip, nothing charted.</desc>");
    expect(groupOf(svg, "30")).toContain("<desc>Tooth 30: present. surfaces, referred. D9310 consultation, referred.</desc>");
    expect(groupOf(svg, "3").startsWith('<g data-tooth="3" data-label="3" data-shape="present" aria-label="Tooth 3">')).toBe(true);
  });

  test("FDI labels: Universal 3 shows 16, and each tooth is drawn where its Universal number is", () => {
    const fdi = renderToothChartSvg(picture({ numbering: "fdi", primary_row: true }));
    const universal = renderToothChartSvg(picture({ primary_row: true }));
    expect(groupOf(fdi, "3").startsWith('<g data-tooth="3" data-label="16" data-shape="present" aria-label="Tooth 16">')).toBe(true);
    expect(groupOf(fdi, "3")).toContain(">16</text>");
    expect(groupOf(fdi, "1")).toContain(">18</text>");
    expect(groupOf(fdi, "A")).toContain(">55</text>");
    expect(groupOf(fdi, "32")).toContain(">48</text>");
    const shapes = (group: string) =>
      group
        .replace(/<text[^>]*>.*?<\/text>/g, "")
        .replace(/<desc>.*?<\/desc>/, "")
        .replace(/data-label="[^"]*" |aria-label="[^"]*"/g, "");
    for (const tooth of ["1", "3", "17", "A", "K"]) expect(shapes(groupOf(fdi, tooth))).toBe(shapes(groupOf(universal, tooth)));
  });

  test("an absent tooth: dashed faint outline, grey cross, no fill, no root", () => {
    const group = groupOf(renderToothChartSvg(FULL), "1");
    expect(group).toContain('stroke="#bbbbbb" stroke-width="1.2" data-part="absent-outline" stroke-dasharray="4 3"');
    expect(count(/<g data-part="absent-cross">.*?<\/g>/.exec(group)?.[0] ?? "", 'stroke="#999999" stroke-width="1.5"')).toBe(2);
    expect(group).not.toContain('data-part="root"');
    expect(["M", "O", "D", "B", "L"].map((s) => surfaceFill(group, s))).toEqual(["none", "none", "none", "none", "none"]);
  });

  test("extraction: a thick cross in the status colour", () => {
    const group = markGroup(groupOf(renderToothChartSvg(FULL), "12"), "extraction");
    expect(count(group, "<line ")).toBe(2);
    expect(count(group, `stroke="${RED}" stroke-width="4"`)).toBe(2);
  });

  test("implant: a screw (a body and 4 threads) in place of the root", () => {
    const tooth = groupOf(renderToothChartSvg(FULL), "10");
    const group = markGroup(tooth, "implant");
    expect(count(group, '<rect x="582" y="34" width="10" height="40" fill="#2e7d32"/>')).toBe(1);
    expect(count(group, '<line x1="578" ')).toBe(4);
    expect(tooth).not.toContain('data-part="root"');
    expect(tooth).not.toContain('data-part="absent-cross"');
  });

  test("root canal: a thick line down the root; post: a bar by the crown; crown: all surfaces and a thick outline", () => {
    const tooth = groupOf(renderToothChartSvg(FULL), "7");
    expect(tooth).toContain('data-part="root"');
    expect(markGroup(tooth, "root_canal")).toBe(
      `<g data-mark="root_canal" data-status="completed"><line x1="413" y1="72" x2="413" y2="37.2" stroke="${BLUE}" stroke-width="3.5" stroke-linecap="round"/></g>`,
    );
    expect(markGroup(tooth, "post")).toBe(`<g data-mark="post" data-status="completed"><rect x="409.5" y="58" width="7" height="16" fill="${BLUE}"/></g>`);
    expect(markGroup(tooth, "crown")).toContain(`stroke="${BLUE}" stroke-width="3"`);
    expect(["M", "O", "D", "B", "L"].map((s) => surfaceFill(tooth, s))).toEqual([BLUE, BLUE, BLUE, BLUE, BLUE]);
  });

  test("pontic: crown filled, no root; fracture, periapical ring, watch W, unerupted faint, other draws nothing", () => {
    const svg = renderToothChartSvg(FULL);
    const pontic = groupOf(svg, "4");
    expect(["M", "O", "D", "B", "L"].map((s) => surfaceFill(pontic, s))).toEqual([RED, RED, RED, RED, RED]);
    expect(pontic).not.toContain('data-part="root"');
    expect(markGroup(groupOf(svg, "8"), "fracture")).toContain('<polyline points="');
    expect(markGroup(groupOf(svg, "8"), "watch")).toContain('font-weight="bold" text-anchor="middle" fill="#ef6c00">W</text>');
    expect(markGroup(groupOf(svg, "9"), "periapical")).toContain('<circle cx="529" cy="34" r="6" fill="none" stroke="#ef6c00" stroke-width="2.5"/>');
    expect(groupOf(svg, "16")).toContain('<g opacity="0.35"><path data-part="root"');
    expect(groupOf(svg, "30")).not.toContain('data-mark="other"');
  });

  test("later marks draw over earlier ones", () => {
    const marks = [mark("surfaces", "existing", ["O", "B"]), mark("surfaces", "planned", ["O"])];
    const group = groupOf(renderToothChartSvg(picture({}, { "2": { marks } })), "2");
    expect(["O", "B"].map((s) => surfaceFill(group, s))).toEqual([RED, "#2e7d32"]);
  });
});

describe("spans", () => {
  test("a bridge 3-5: one bar from the middle of 3 to the middle of 5, under the crowns, with its description", () => {
    const svg = renderToothChartSvg(FULL);
    const span = /<g data-span="3-5"[^>]*>.*?<\/g>/.exec(svg)?.[0];
    expect(span).toBe(
      '<g data-span="3-5" data-teeth="3 4 5" data-status="planned"><desc>D6240 pontic, D6750 crowns: bridge 3-5, planned: teeth 3, 4, 5.</desc>' +
        `<rect x="181" y="92" width="116" height="12" fill="${RED}"/></g>`,
    );
    expect(svg.indexOf("<g data-span=")).toBeLessThan(svg.indexOf("<g data-tooth="));
  });

  test("only consecutive teeth of one row are joined; teeth of other rows or not drawn are left out", () => {
    const bars = (teeth: string[], primaryRow = false) => {
      const svg = renderToothChartSvg(picture({ primary_row: primaryRow, spans: [{ teeth, status: "existing", text: "splint" }] }));
      return [...svg.matchAll(/<rect x="([\d.]+)" y="[\d.]+" width="([\d.]+)" height="([\d.]+)" fill="#2e7d32"\/>/g)].map((m) => m.slice(1).map(Number));
    };
    expect(bars(["3", "5"])).toEqual([]);
    expect(bars(["3", "4", "30"])).toEqual([[181, 58, 12]]);
    expect(bars(["27", "26", "25", "24", "23", "22"])).toEqual([[355, 290, 12]]);
    expect(bars(["8", "9", "11", "12"])).toEqual([
      [471, 58, 12],
      [645, 58, 12],
    ]);
    expect(bars(["D", "E"])).toEqual([]); // no primary row drawn
    expect(bars(["D", "E", "12"], true)).toEqual([[398, 68, 10]]);
  });
});

describe("text", () => {
  test("escaped everywhere: title, descriptions, labels, note and the elsewhere list", () => {
    const nasty = `<script>&"'`;
    const escaped = "&lt;script&gt;&amp;&quot;&#39;";
    const svg = renderToothChartSvg(
      picture(
        { title: nasty, note: nasty, elsewhere: [{ status: "planned", text: nasty }], spans: [{ teeth: ["3", "4"], status: "planned", text: nasty }] },
        { "3": { label: nasty, marks: [mark("other", "planned", [], nasty)] } },
      ),
    );
    expect(svg).not.toContain("<script");
    expect(svg).toContain(`<title id="chart-title">${escaped}</title>`);
    // title, chart desc (the note), span desc (text and tooth 3's label), data-label, aria-label, tooth desc (label and mark), label text, note, elsewhere
    expect(count(svg, escaped)).toBe(1 + 1 + 2 + 1 + 1 + 2 + 1 + 1 + 1);
    expect(svg).toContain(`data-label="${escaped}"`);
  });

  test("characters XML does not allow are dropped", () => {
    expect(renderToothChartSvg(picture({ title: "a\u0000b\u0007c\uFFFEd\uD800e" }))).toContain('<title id="chart-title">abcde</title>');
  });

  test("the elsewhere list: at most 12 lines, the last saying how many more; long lines cut with the full text kept", () => {
    const items = (n: number) => Array.from({ length: n }, (_, i) => ({ status: "planned" as const, text: `item ${i + 1}` }));
    const lines = (n: number) =>
      [...renderToothChartSvg(picture({ elsewhere: items(n) })).matchAll(/font-size="12" fill="#333333">([^<]*)<\/text>/g)].map((m) => m[1]);
    expect(lines(12)).toEqual(items(12).map((i) => i.text));
    expect(lines(14)).toEqual([...items(11).map((i) => i.text), "and 3 more"]);
    expect(lines(0)).toEqual([]);
    const long = "x".repeat(200);
    const svg = renderToothChartSvg(picture({ elsewhere: [{ status: "condition", text: long }] }));
    expect(svg).toContain(`<title>${long}</title>${"x".repeat(119)}…</text>`);
  });

  test("the note is drawn only when there is one", () => {
    expect(renderToothChartSvg(picture())).not.toContain('data-part="note"');
    expect(renderToothChartSvg(picture({ note: "This treatment plan has no procedures." }))).toContain(
      '<g data-part="note"><text x="41" y="328" font-size="13" fill="#333333">This treatment plan has no procedures.</text></g>',
    );
  });
});
