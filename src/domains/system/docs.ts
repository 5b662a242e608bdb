import { z } from "zod";
import { zodToOpenApiSchema } from "@/platform/http/json-schema";

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
      op.requestBody = { required: true, content: { "application/json": { schema: zodToOpenApiSchema(body as z.ZodType) } } } as never;
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
  return doc;
}

/** The interactive reference page: it reads /openapi.json. */
export const REFERENCE_PAGE = `<!doctype html>
<html><head><title>Cusp API reference</title><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><script id="api-reference" data-url="/openapi.json"></script>
<script src="https://cdn.jsdelivr.net/npm/@scalar/api-reference@1.72.1/dist/browser/standalone.min.js"></script></body></html>`;
