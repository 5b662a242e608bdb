import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Page } from "playwright-core";
import { startTestApp } from "@tests/helpers";
import { startServer, type ServerProcess } from "@tests/support/server-process";
import { DOCS_CSP, VIEWER_CONFIG_PATH, VIEWER_SCRIPT_PATH } from "@/domains/system/docs";

// The API reference at /docs, as a browser sees it (docs/system/api-reference.md):
// the real service in its own process, the page opened in Debian's Chromium
// (scripts/services/chromium.ts; `npm test` installs it and passes CHROMIUM_PATH).
// The reference must render the booking operations while every request stays
// on the service's origin, with no CSP violation and no console error. Without
// Chromium the browser case is reported as skipped, saying why.

const ROOT = join(import.meta.dir, "../..");
const SCREENSHOT = join(ROOT, "test-artifacts", "docs.png");

function chromiumPath(): { path: string } | { unavailable: string } {
  if (process.env.CHROMIUM_UNAVAILABLE) return { unavailable: process.env.CHROMIUM_UNAVAILABLE };
  const path = process.env.CHROMIUM_PATH || Bun.which("chromium") || Bun.which("chromium-browser");
  if (path && existsSync(path)) return { path };
  return { unavailable: "no chromium found (run `bun run scripts/services/chromium.ts`, or `npm test` which runs it)" };
}
const browserAt = chromiumPath();
const skipReason = "unavailable" in browserAt ? browserAt.unavailable : null;
if (skipReason) console.log(`tests/platform/docs-browser.test.ts: SKIPPED the browser test: ${skipReason}`);

describe("/docs without a browser", () => {
  test("the page names no other origin, carries the CSP and its assets are served as JavaScript", async () => {
    const t = await startTestApp();
    try {
      const page = await t.request("GET", "/docs");
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(page.headers.get("content-security-policy")).toBe(DOCS_CSP);
      expect(page.text).not.toMatch(/https?:\/\//i);
      expect(page.text).not.toMatch(/<script>|<script [^>]*>[^<]/); // no inline script: every script has a src
      const sources = [...page.text.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]!);
      expect(sources.map((s) => s.split("?")[0])).toEqual([VIEWER_CONFIG_PATH, VIEWER_SCRIPT_PATH]);
      for (const src of sources) {
        const asset = await t.request("GET", src);
        expect({ src, status: asset.status, type: asset.headers.get("content-type") }).toEqual({ src, status: 200, type: "text/javascript; charset=utf-8" });
        expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      }
      const viewer = await t.request("GET", sources[1]!);
      expect(viewer.text).toContain("createApiReference");
      expect(viewer.text.length).toBeGreaterThan(1_000_000);
      expect(viewer.text).not.toMatch(/\/\/# sourceMappingURL=\S+\s*$/); // the map is not served
      // the configuration turns off what would call Scalar's services
      const config = await t.request("GET", sources[0]!);
      expect(config.text).toContain('"withDefaultFonts":false');
      expect(config.text).toContain('"url":"/openapi.json"');
      expect(config.text).not.toMatch(/https?:\/\//i);
      // gzipped for a browser that says it takes gzip
      const gz = await t.request("GET", VIEWER_SCRIPT_PATH, { headers: { "accept-encoding": "gzip, deflate, br" } });
      expect(gz.headers.get("content-encoding")).toBe("gzip");
    } finally {
      await t.close();
    }
  });
});

type Operation = { method: string; path: string; tag: string; summary: string };

/** The booking operations, found in the service's own OpenAPI document by what they do. */
async function bookingOperations(base: string): Promise<Operation[]> {
  const doc = (await (await fetch(`${base}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { tags?: string[]; summary?: string }>>;
  };
  const all = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, tag: op.tags?.[0] ?? "", summary: op.summary ?? "" })),
  );
  const one = (method: string, path: string) => {
    const op = all.find((o) => o.method === method && o.path === path);
    if (!op?.summary || !op.tag) throw new Error(`${method} ${path} is not in /openapi.json with a tag and a summary`);
    return op;
  };
  const book = one("POST", "/api/v1/{org_id}/appointments");
  const slots = one("GET", "/api/v1/{org_id}/schedule/availability");
  // slot holds, where the API has them
  const holds = all.filter((o) => /\/(slot-)?holds?\b/.test(o.path) && /appointment|schedul|slot/i.test(`${o.path} ${o.tag}`));
  return [book, slots, ...holds];
}

/** A sidebar entry by its text (an operation's link also holds its method). */
const sidebarLink = (page: Page, text: string) =>
  page
    .locator("aside")
    .getByRole("link")
    .filter({ has: page.getByText(text, { exact: true }) })
    .first();

/** Opens the operation from the sidebar (its tag first) and waits for its heading in the reference. */
async function showOperation(page: Page, op: Operation) {
  const link = sidebarLink(page, op.summary);
  if (!(await link.isVisible())) await sidebarLink(page, op.tag).click();
  await link.click();
  const heading = page.locator("main").getByRole("heading", { name: op.summary, exact: true }).first();
  await heading.waitFor({ state: "visible", timeout: 15_000 });
  return heading;
}

describe("/docs in Chromium", () => {
  test.skipIf(!!skipReason)(
    "renders the booking operations from the service alone: no other origin, no CSP violation, no console error",
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), "cusp-docs-browser-"));
      let server: ServerProcess | undefined;
      const browser = await chromium.launch({ executablePath: (browserAt as { path: string }).path, headless: true });
      try {
        server = await startServer(dataDir);
        const origin = server.base;
        const operations = await bookingOperations(origin);

        const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
        const requests: string[] = [];
        const consoleErrors: string[] = [];
        page.on("request", (r) => requests.push(r.url()));
        page.on("console", (m) => {
          if (m.type() === "error") consoleErrors.push(m.text());
        });
        page.on("pageerror", (e) => consoleErrors.push(`uncaught: ${e.message}`));
        await page.addInitScript(() => {
          const seen: string[] = [];
          (window as unknown as { __cspViolations: string[] }).__cspViolations = seen;
          document.addEventListener("securitypolicyviolation", (e) => seen.push(`${e.violatedDirective} ${e.blockedURI} ${e.sample}`));
        });

        const response = await page.goto(`${origin}/docs`);
        expect(response?.status()).toBe(200);
        expect(response?.headers()["content-security-policy"]).toBe(DOCS_CSP);

        // rendered: the sidebar lists the booking tags
        for (const tag of new Set(operations.map((o) => o.tag))) {
          await sidebarLink(page, tag).waitFor({ state: "visible", timeout: 30_000 });
        }
        for (const op of operations) {
          const heading = await showOperation(page, op);
          expect({ op: `${op.method} ${op.path}`, visible: await heading.isVisible() }).toEqual({ op: `${op.method} ${op.path}`, visible: true });
        }
        // the tag of the booking verb, with its description, as the screenshot shows it
        const book = operations[0]!;
        await sidebarLink(page, book.tag).click();
        const tagHeading = page.locator("main").getByRole("heading", { name: book.tag, exact: true }).first();
        await tagHeading.waitFor({ state: "visible", timeout: 15_000 });
        await page.waitForLoadState("networkidle");

        mkdirSync(join(ROOT, "test-artifacts"), { recursive: true });
        await page.screenshot({ path: SCREENSHOT });

        const violations = await page.evaluate(() => (window as unknown as { __cspViolations: string[] }).__cspViolations);
        expect(violations).toEqual([]);
        expect(consoleErrors).toEqual([]);
        expect(requests.length).toBeGreaterThanOrEqual(4); // the page, its two scripts, /openapi.json
        expect(requests.filter((url) => !url.startsWith(`${origin}/`))).toEqual([]);
        expect(requests).toContain(`${origin}/openapi.json`);
      } finally {
        await browser.close();
        await server?.kill();
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
