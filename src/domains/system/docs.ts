import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { zodToOpenApiSchema } from "@/platform/http/json-schema";
import { finishOpenApi } from "@/platform/http/openapi-document";
import { declaredSchema } from "@/platform/http/response-schemas";

export const RAW_SPEC_PATH = "/openapi/raw.json";
export type RouteLike = { method: string; path: string; hooks?: unknown };
type Doc = {
  paths: Record<
    string,
    Record<
      string,
      { requestBody?: { content?: Record<string, unknown> }; responses?: Record<string, { content?: Record<string, { schema?: Record<string, unknown> }> }> }
    >
  >;
};

/**
 * The generator emits every body as JSON, form and multipart, and an empty
 * JSON schema for 204: the service accepts JSON only and sends 204 bare.
 */
export function tidyOpenApi<T extends Doc>(doc: T, routes: RouteLike[]): T {
  for (const route of routes) {
    const body = (route.hooks as { body?: unknown })?.body;
    const op = doc.paths?.[route.path.replace(/:([^/]+)/g, "{$1}")]?.[route.method.toLowerCase()];
    // our JSON parse hook hides body schemas from the generator: document them here
    if (op && body && typeof body === "object" && "~standard" in body) {
      // required unless the schema takes an absent body, the rule request-validation.ts applies
      const required = !(declaredSchema(body) as z.ZodType).safeParse(undefined).success;
      op.requestBody = { required, content: { "application/json": { schema: zodToOpenApiSchema(body as z.ZodType) } } } as never;
    }
  }
  for (const [path, ops] of Object.entries(doc.paths ?? {})) {
    // path parameters are ids (strings); routes don't validate them, the lookup answers 404
    const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    for (const op of Object.values(ops) as { parameters?: { name: string; in: string }[] }[]) {
      const others = (op.parameters ?? []).filter((p) => p.in !== "path");
      const pathParams = names.map((name) => ({ name, in: "path", required: true, schema: { type: "string" } }));
      if (names.length || op.parameters) op.parameters = [...pathParams, ...others];
    }
    for (const op of Object.values(ops)) {
      const noContent = op.responses?.["204"];
      if (noContent) delete noContent.content;
      const stream = op.responses?.["200"]?.content?.["application/json"];
      if (stream?.schema?.contentMediaType === "text/event-stream") {
        op.responses!["200"]!.content = { "text/event-stream": { schema: { type: "string" } } };
      }
    }
  }
  finishOpenApi(doc, routes); // shared components, security, descriptions, examples, operationIds
  return doc;
}

/**
 * The interactive reference at /docs, served whole by the service so it works
 * on a clinic network with no way out (docs/system/api-reference.md): the viewer is
 * Scalar's standalone browser build from the installed @scalar/api-reference
 * package, its configuration a same-origin script, and the page carries a
 * Content-Security-Policy that lets it load nothing from anywhere else.
 */
export const DOCS_ASSETS_PATH = "/docs/assets";
export const VIEWER_SCRIPT_PATH = `${DOCS_ASSETS_PATH}/standalone.js`;
export const VIEWER_CONFIG_PATH = `${DOCS_ASSETS_PATH}/reference.js`;

/**
 * Only the service's own origin. style-src needs 'unsafe-inline': the viewer
 * ships its CSS inside its script and adds it at run time, as <style> elements
 * (its stylesheet, the theme's variables, which it renders from the
 * configuration, the toast styles) and as style attributes in the markup it
 * writes. Only its own stylesheet takes a nonce; the theme's element has none
 * and no fixed content to hash, and hashes never cover style attributes. With
 * style-src 'self' alone the page is unstyled text (docs/system/api-reference.md).
 * Scripts stay 'self' only: no inline script, no eval.
 */
export const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/**
 * The viewer's configuration: everything that would reach a Scalar service
 * (fonts.scalar.com, telemetry, the agent, MCP, the developer toolbar) is off.
 * The document's server is "/" (openapi-document.ts) and there is no proxy, so
 * "Test request" calls this origin.
 */
const VIEWER_CONFIG = {
  url: "/openapi.json",
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: "never",
  documentDownloadType: "json",
  operationTitleSource: "summary",
  defaultOpenAllTags: false,
};

/**
 * Runs before the viewer's script. The viewer's bundled zod probes for eval
 * (`Function("")`) to compile its parsers, which script-src 'self' refuses
 * with a CSP violation report: jitless mode skips the probe and parses the
 * same without compiling. The viewer mounts once the page is parsed.
 */
function viewerConfigScript(): string {
  return `globalThis.__zod_globalConfig = Object.assign(globalThis.__zod_globalConfig || {}, { jitless: true });
document.addEventListener("DOMContentLoaded", function () {
  Scalar.createApiReference("#api-reference-app", ${JSON.stringify(VIEWER_CONFIG)});
});
`;
}

export type DocsAsset = { body: Uint8Array<ArrayBuffer>; version: string; contentType: string; gzipped?: Uint8Array<ArrayBuffer> };
export type DocsAssets = { viewer: DocsAsset; config: DocsAsset; page: string };

const JS = "text/javascript; charset=utf-8";
let loaded: DocsAssets | undefined;

/**
 * Reads the viewer from the installed package once (at start: app.ts builds the
 * docs routes when the app is built) and writes the page around it. Asset URLs
 * carry a hash of their content, so they can be cached for a year.
 */
export function docsAssets(): DocsAssets {
  if (loaded) return loaded;
  // the package exports no path to its browser build: found next to its main entry (dist/index.js)
  const main = import.meta.resolve("@scalar/api-reference");
  const source = readFileSync(fileURLToPath(new URL("./browser/standalone.js", main)), "utf8");
  // the source map is not served: a browser with devtools open would ask for it
  const viewer = asset(new TextEncoder().encode(source.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, "\n")), JS);
  const config = asset(new TextEncoder().encode(viewerConfigScript()), JS);
  loaded = { viewer, config, page: referencePage(viewer, config) };
  return loaded;
}

function asset(body: Uint8Array<ArrayBuffer>, contentType: string): DocsAsset {
  return { body, contentType, version: new Bun.CryptoHasher("sha256").update(body).digest("hex").slice(0, 16) };
}

function referencePage(viewer: DocsAsset, config: DocsAsset): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Cusp API reference</title><meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,"></head>
<body><noscript>The API reference needs JavaScript. The OpenAPI document is at <a href="/openapi.json">/openapi.json</a>.</noscript>
<div id="api-reference-app"></div>
<script src="${VIEWER_CONFIG_PATH}?v=${config.version}"></script>
<script src="${VIEWER_SCRIPT_PATH}?v=${viewer.version}"></script></body></html>
`;
}

/** The page: never cached (it names the current assets), never framed, nothing loaded from elsewhere. */
export function docsPageResponse(): Response {
  return new Response(docsAssets().page, {
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": DOCS_CSP,
      "cache-control": "no-cache",
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
    },
  });
}

/**
 * An asset: immutable for a year (its URL changes with its content), gzipped
 * for a browser that takes it (the viewer is 4.3 MB, 1.3 MB gzipped; compressed once, on first ask).
 */
export function docsAssetResponse(which: "viewer" | "config", acceptEncoding: string | null): Response {
  const a = docsAssets()[which];
  const gzip = /\bgzip\b/.test(acceptEncoding ?? "");
  if (gzip) a.gzipped ??= Bun.gzipSync(a.body);
  return new Response(gzip ? a.gzipped : a.body, {
    headers: {
      "content-type": a.contentType,
      "cache-control": "public, max-age=31536000, immutable",
      vary: "accept-encoding",
      "x-content-type-options": "nosniff",
      ...(gzip ? { "content-encoding": "gzip" } : {}),
    },
  });
}
