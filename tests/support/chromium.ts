import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";
import sharp from "sharp";

// Debian's Chromium for the tests that look at what the service draws as a
// person would (scripts/services/chromium.ts installs it; `npm test` passes
// CHROMIUM_PATH, or CHROMIUM_UNAVAILABLE with the reason it could not be had).
// Tests skip, saying why, only when there is no Chromium.

export function chromiumPath(): { path: string } | { unavailable: string } {
  if (process.env.CHROMIUM_UNAVAILABLE) return { unavailable: process.env.CHROMIUM_UNAVAILABLE };
  const path = process.env.CHROMIUM_PATH || Bun.which("chromium") || Bun.which("chromium-browser");
  if (path && existsSync(path)) return { path };
  return { unavailable: "no chromium found (run `bun run scripts/services/chromium.ts`, or `npm test` which runs it)" };
}

/** Why the browser tests of `file` are skipped (printed once), or null when Chromium is here. */
export function chromiumSkipReason(file: string): string | null {
  const at = chromiumPath();
  if ("path" in at) return null;
  console.log(`${file}: SKIPPED the browser tests: ${at.unavailable}`);
  return at.unavailable;
}

/** Headless, with nothing reaching out to the network (this machine's network is closed). */
export async function launchChromium(): Promise<Browser> {
  const at = chromiumPath();
  if (!("path" in at)) throw new Error(at.unavailable);
  return chromium.launch({
    executablePath: at.path,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
}

export type Screenshot = {
  width: number;
  height: number;
  png: Uint8Array;
  /** [r, g, b] at a CSS pixel of the page (device scale 1). */
  rgb(x: number, y: number): [number, number, number];
};

/**
 * An SVG document as Chromium draws it: the page holds only the SVG at its own
 * size (its width and height attributes), on white, and is shot at 1 CSS px per
 * device px, so a point of the SVG's user space (viewBox equal to its size) is
 * the pixel with the same coordinates.
 */
export async function screenshotSvg(browser: Browser, svg: string): Promise<Screenshot> {
  const page = await browser.newPage({ deviceScaleFactor: 1, viewport: { width: 2400, height: 2400 } });
  try {
    await page.setContent(`<!doctype html><html><body style="margin:0;background:#fff">${svg}</body></html>`);
    const box = await page.locator("svg").first().boundingBox();
    if (!box) throw new Error("the SVG was not laid out");
    const png = await page.screenshot({ clip: { x: 0, y: 0, width: Math.ceil(box.width), height: Math.ceil(box.height) } });
    return decodePng(new Uint8Array(png));
  } finally {
    await page.close();
  }
}

/** A PNG's pixels, for checking colours at known places. */
export async function decodePng(png: Uint8Array): Promise<Screenshot> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return {
    width: info.width,
    height: info.height,
    png,
    rgb(x, y) {
      const i = (Math.round(y) * info.width + Math.round(x)) * 3;
      return [data[i]!, data[i + 1]!, data[i + 2]!];
    },
  };
}

/** Whether `rgb` is within `tolerance` (per channel) of the hex colour `#rrggbb`. */
export function near(rgb: [number, number, number], hex: string, tolerance = 40): boolean {
  const want = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));
  return rgb.every((c, i) => Math.abs(c - want[i]!) <= tolerance);
}
