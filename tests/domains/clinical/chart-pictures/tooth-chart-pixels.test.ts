import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import type { MarkKind, MarkStatus, ToothChartPicture, ToothMark } from "@/domains/clinical/chart-pictures/model";
import { toothPicture } from "@tests/domains/clinical/chart-pictures/fixtures";
import { CHART_INK } from "@/domains/clinical/chart-pictures/tooth-chart-markup";
import { renderToothChartSvg } from "@/domains/clinical/chart-pictures/tooth-chart-svg";
import { type Point, spanConnectorPoint, toothGeometry } from "@/domains/clinical/chart-pictures/tooth-geometry";
import { chromiumSkipReason, launchChromium, near, type Screenshot, screenshotSvg } from "@tests/support/chromium";

// The tooth chart as Chromium draws it: colours at the points the geometry
// says each surface, root and span connector is. Screenshots are kept in
// test-artifacts/ for a person to look at.

const skip = chromiumSkipReason("tests/domains/clinical/chart-pictures/tooth-chart-pixels.test.ts");
const ARTIFACTS = join(import.meta.dir, "../../../../test-artifacts");
const RED = "#d32f2f";
const BLUE = "#1565c0";
const GREEN = "#2e7d32";
const WHITE = "#ffffff";
const SURFACES = ["M", "O", "D", "B", "L"] as const;

const picture = toothPicture;
const mark = (kind: MarkKind, status: MarkStatus, surfaces: ToothMark["surfaces"] = []): ToothMark => ({ kind, status, surfaces, text: `${kind}, ${status}` });

let browser: Browser | undefined;

beforeAll(async () => {
  if (skip) return;
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
}, 30_000);

afterAll(async () => {
  await browser?.close();
});

async function shoot(name: string, p: ToothChartPicture): Promise<Screenshot> {
  if (!browser) throw new Error("no browser");
  const shot = await screenshotSvg(browser, renderToothChartSvg(p));
  writeFileSync(join(ARTIFACTS, `tooth-chart-${name}.png`), shot.png);
  return shot;
}

/** Which of `points` are near `hex` (named so a failure says which). */
function colourAt(shot: Screenshot, points: Record<string, Point>, hex: string, tolerance = 40): Record<string, boolean> {
  return Object.fromEntries(Object.entries(points).map(([name, p]) => [name, near(shot.rgb(p.x, p.y), hex, tolerance)]));
}
const all = (names: readonly string[], value: boolean) => Object.fromEntries(names.map((n) => [n, value]));

/** Whether some pixel within 1 px of `p` is near `hex`: for thin lines, which antialiasing spreads. */
const lineNear = (shot: Screenshot, p: Point, hex: string): boolean =>
  [-1, 0, 1].some((dx) => [-1, 0, 1].some((dy) => near(shot.rgb(p.x + dx, p.y + dy), hex, 30)));

describe("the tooth chart in Chromium", () => {
  test.skipIf(!!skip)(
    "a missing tooth is not drawn as present: no crown fill, no root; its present neighbour has both",
    async () => {
      const shot = await shoot("absent", picture({}, { "2": { shape: "absent", status_text: "missing" } }));
      const [missing, present] = [toothGeometry("2", false), toothGeometry("3", false)];
      expect(shot.width).toBe(1000);
      // (B is left out: the cross through the whole tooth, crown and root, meets by the buccal edge)
      const { M, O, D, L } = missing.surfaces;
      expect(colourAt(shot, { M, O, D, L, root: missing.root }, WHITE, 6)).toEqual(all(["M", "O", "D", "L", "root"], true));
      expect(near(shot.rgb(present.root.x, present.root.y), CHART_INK.root, 8)).toBe(true);
      expect(near(shot.rgb(present.root.x, present.root.y), WHITE)).toBe(false);
      expect(colourAt(shot, present.surfaces, WHITE, 6)).toEqual(all(SURFACES, true));
      // the grey cross of the missing tooth meets between its crown and where its root would be
      expect(lineNear(shot, { x: missing.x + missing.width / 2, y: missing.root.y + missing.height / 2 }, CHART_INK.cross)).toBe(true);
      // the present crown's outline is drawn: its edge, halfway along the buccal side
      expect(lineNear(shot, { x: present.x + present.width / 2, y: present.y }, CHART_INK.stroke)).toBe(true);
    },
    30_000,
  );

  test.skipIf(!!skip)(
    "a planned MOD on 3 colours M, O and D red and leaves B and L white",
    async () => {
      const shot = await shoot("mod", picture({}, { "3": { marks: [mark("surfaces", "planned", ["M", "O", "D"])] } }));
      const { M, O, D, B, L } = toothGeometry("3", false).surfaces;
      expect(colourAt(shot, { M, O, D }, RED)).toEqual(all(["M", "O", "D"], true));
      expect(colourAt(shot, { B, L }, WHITE, 6)).toEqual(all(["B", "L"], true));
      // M is the side towards the midline: the right trapezoid of a tooth on the viewer's left
      expect(M.x).toBeGreaterThan(D.x);
    },
    30_000,
  );

  test.skipIf(!!skip)(
    "a completed crown on 14 colours all five regions blue",
    async () => {
      const shot = await shoot("crown", picture({}, { "14": { marks: [mark("crown", "completed")] } }));
      expect(colourAt(shot, toothGeometry("14", false).surfaces, BLUE)).toEqual(all(SURFACES, true));
      expect(colourAt(shot, toothGeometry("13", false).surfaces, WHITE, 6)).toEqual(all(SURFACES, true));
    },
    30_000,
  );

  const bridge = (numbering: ToothChartPicture["numbering"]) =>
    picture(
      { numbering, spans: [{ teeth: ["3", "4", "5"], status: "planned", text: "bridge 3-5, planned" }] },
      {
        "3": { marks: [mark("crown", "planned")] },
        "4": { shape: "absent", status_text: "missing", marks: [mark("pontic", "planned")] },
        "5": { marks: [mark("crown", "planned")] },
      },
    );

  for (const numbering of ["universal", "fdi"] as const) {
    test.skipIf(!!skip)(
      `a planned bridge 3-5 joins its teeth (${numbering} labels)`,
      async () => {
        const shot = await shoot(`bridge-${numbering}`, bridge(numbering));
        const gaps = {
          "2-3": spanConnectorPoint("2", "3", false),
          "3-4": spanConnectorPoint("3", "4", false),
          "4-5": spanConnectorPoint("4", "5", false),
          "5-6": spanConnectorPoint("5", "6", false),
        };
        expect(colourAt(shot, gaps, RED)).toEqual({ "2-3": false, "3-4": true, "4-5": true, "5-6": false });
        expect(colourAt(shot, { "2-3": gaps["2-3"], "5-6": gaps["5-6"] }, WHITE, 6)).toEqual({ "2-3": true, "5-6": true });
        // the pontic: crown red, no root
        const pontic = toothGeometry("4", false);
        expect(colourAt(shot, { ...pontic.surfaces, root: pontic.root }, RED)).toEqual({ ...all(SURFACES, true), root: false });
        expect(near(shot.rgb(pontic.root.x, pontic.root.y), WHITE, 6)).toBe(true);
      },
      30_000,
    );
  }

  test.skipIf(!!skip)(
    "lower and primary teeth: B is on the outer side, M towards the midline; a root canal colours the root",
    async () => {
      const shot = await shoot(
        "mixed",
        picture(
          { primary_row: true },
          {
            "30": { marks: [mark("surfaces", "existing", ["B"])] },
            "19": { marks: [mark("root_canal", "completed")] },
            B: { marks: [mark("surfaces", "planned", ["M"])] },
            S: { marks: [mark("surfaces", "planned", ["D", "L"])] },
          },
        ),
      );
      const lower = toothGeometry("30", true);
      expect(lower.surfaces.B.y).toBeGreaterThan(lower.surfaces.L.y);
      expect(colourAt(shot, lower.surfaces, GREEN)).toEqual({ M: false, O: false, D: false, B: true, L: false });
      expect(colourAt(shot, toothGeometry("B", true).surfaces, RED)).toEqual({ M: true, O: false, D: false, B: false, L: false });
      expect(colourAt(shot, toothGeometry("S", true).surfaces, RED)).toEqual({ M: false, O: false, D: true, B: false, L: true });
      expect(near(shot.rgb(toothGeometry("19", true).root.x, toothGeometry("19", true).root.y), BLUE)).toBe(true);
      expect(near(shot.rgb(toothGeometry("18", true).root.x, toothGeometry("18", true).root.y), CHART_INK.root, 8)).toBe(true);
    },
    30_000,
  );
});
