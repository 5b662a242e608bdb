import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import type { PerioChartPicture, PerioChartTooth, PerioExamPicture, PerioSite } from "@/domains/clinical/chart-pictures/model";
import { renderPerioChartSvg, siteBar, siteDot } from "@/domains/clinical/chart-pictures/perio-chart-svg";
import { DEPTHS, perioTooth } from "@tests/domains/clinical/chart-pictures/fixtures";
import { chromiumSkipReason, launchChromium, near, type Screenshot, screenshotSvg } from "@tests/support/chromium";

// The perio chart as Chromium draws it: the colours a hygienist reads are at
// the places the geometry says (perio-geometry.ts). The SVG's text is checked
// in perio-chart-svg.test.ts. Screenshots go to test-artifacts/ for a look.

const skip = chromiumSkipReason("tests/domains/clinical/chart-pictures/perio-chart-pixels.test.ts");
const ARTIFACTS = join(import.meta.dir, "../../../../test-artifacts");
const TIMEOUT = 30_000;

const tooth = perioTooth;
const ALL = Array.from({ length: 32 }, (_, i) => String(i + 1));
const exam = (date: string, changes: Record<string, Partial<PerioChartTooth>>): PerioExamPicture => ({
  exam_date: date,
  teeth: ALL.filter((n) => n !== "1").map((n) => tooth(n, changes[n] ?? {})),
});

/** Tooth 3: DB 6, B 2, MB 4, bleeding at B. Tooth 14: B 4 now, 6 before. Tooth 19: DB 7. */
const NOW = exam("2026-05-01", {
  "3": { pocket_depths: { ...DEPTHS, db: 6, b: 2, mb: 4 }, bleeding_sites: ["b"], suppuration_sites: ["db"] },
  "14": { pocket_depths: { ...DEPTHS, b: 4 } },
  "19": { pocket_depths: { ...DEPTHS, db: 7 } },
});
const BEFORE = exam("2025-11-03", { "14": { pocket_depths: { ...DEPTHS, b: 6 } } });
const picture = (compare_to: PerioExamPicture | null): PerioChartPicture => ({
  title: "Perio chart: Jane Doe, 2026-05-01",
  numbering: "universal",
  exam: NOW,
  compare_to,
  absent_teeth: ["1"],
});

/** The pixel `mm` millimetres along the site's bar from the margin, on its centre line. */
function alongBar(shot: Screenshot, n: string, site: PerioSite, mm: number): [number, number, number] {
  const bar = siteBar(n, site);
  return shot.rgb(bar.x, bar.y0 + mm * bar.mmPx);
}

const WHITE = "#ffffff";
const isDark = (rgb: [number, number, number]): boolean => Math.max(...rgb) < 160;

let browser: Browser;
let plain: Screenshot;
let compared: Screenshot;

describe("perio chart pixels", () => {
  beforeAll(async () => {
    if (skip) return;
    browser = await launchChromium();
    plain = await screenshotSvg(browser, renderPerioChartSvg(picture(null)));
    compared = await screenshotSvg(browser, renderPerioChartSvg(picture(BEFORE)));
    mkdirSync(ARTIFACTS, { recursive: true });
    await Bun.write(join(ARTIFACTS, "perio-chart.png"), plain.png);
    await Bun.write(join(ARTIFACTS, "perio-chart-compared.png"), compared.png);
  }, TIMEOUT);

  afterAll(async () => {
    await browser?.close();
  }, TIMEOUT);

  test.skipIf(!!skip)(
    "the picture is drawn at its own size",
    () => {
      expect([plain.width, plain.height]).toEqual([868, 884]);
    },
    TIMEOUT,
  );

  test.skipIf(!!skip)(
    "a 6 mm pocket is red to its end; the 2 mm one beside it grey-blue, then white",
    () => {
      expect({ at: "3 db 5.5 mm", near: near(alongBar(plain, "3", "db", 5.5), "#c62828") }).toEqual({ at: "3 db 5.5 mm", near: true });
      expect({ at: "3 db 6.5 mm", near: near(alongBar(plain, "3", "db", 6.5), WHITE) }).toEqual({ at: "3 db 6.5 mm", near: true });
      expect({ at: "3 b 0.5 mm", near: near(alongBar(plain, "3", "b", 0.5), "#607d8b") }).toEqual({ at: "3 b 0.5 mm", near: true });
      expect({ at: "3 b 1.5 mm", near: near(alongBar(plain, "3", "b", 1.5), "#607d8b") }).toEqual({ at: "3 b 1.5 mm", near: true });
      expect({ at: "3 b 2.5 mm", near: near(alongBar(plain, "3", "b", 2.5), WHITE) }).toEqual({ at: "3 b 2.5 mm", near: true });
      expect({ at: "3 b 4.5 mm", near: near(alongBar(plain, "3", "b", 4.5), WHITE) }).toEqual({ at: "3 b 4.5 mm", near: true });
      // A lower tooth: the bar goes down.
      expect({ at: "19 db 6.5 mm", near: near(alongBar(plain, "19", "db", 6.5), "#c62828") }).toEqual({ at: "19 db 6.5 mm", near: true });
    },
    TIMEOUT,
  );

  test.skipIf(!!skip)(
    "a 4 mm pocket is amber",
    () => {
      expect(near(alongBar(plain, "3", "mb", 3.5), "#f57c00")).toBe(true);
      expect(near(alongBar(plain, "3", "mb", 4.5), WHITE)).toBe(true);
      expect(near(alongBar(plain, "14", "b", 3.5), "#f57c00")).toBe(true);
    },
    TIMEOUT,
  );

  test.skipIf(!!skip)(
    "a bleeding site's dot is red; where a site did not bleed it is white",
    () => {
      const at = (site: PerioSite, kind: "bleeding" | "suppuration") => {
        const dot = siteDot("3", site, kind);
        return plain.rgb(dot.x, dot.y);
      };
      expect(near(at("b", "bleeding"), "#d32f2f")).toBe(true);
      expect(near(at("mb", "bleeding"), WHITE)).toBe(true);
      expect(near(at("db", "bleeding"), WHITE)).toBe(true);
      expect(near(at("db", "suppuration"), "#fbc02d")).toBe(true);
      expect(near(at("b", "suppuration"), WHITE)).toBe(true);
    },
    TIMEOUT,
  );

  test.skipIf(!!skip)(
    "compared: the earlier, deeper pocket's outline runs past the shallower bar",
    () => {
      const bar = siteBar("14", "b");
      // The outline's end, 6 mm from the margin, across the bar's width (it is dashed, so some of it).
      const endRow = (shot: Screenshot) =>
        [-1, 0, 1].flatMap((dy) => [-5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5].map((dx) => shot.rgb(bar.x + dx, bar.y0 + 6 * bar.mmPx + dy)));
      expect(endRow(compared).some(isDark)).toBe(true);
      expect(endRow(plain).some(isDark)).toBe(false);
      // Between the two ends the outline is hollow, and the bar ends at 4 mm.
      expect(near(alongBar(compared, "14", "b", 5), WHITE)).toBe(true);
      expect(near(alongBar(compared, "14", "b", 3.5), "#f57c00")).toBe(true);
    },
    TIMEOUT,
  );
});
