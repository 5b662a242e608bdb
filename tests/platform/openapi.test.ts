import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { startTestApp, type TestApp } from "@tests/helpers";
import { buildApp } from "@/app";

let t: TestApp;
let doc: any;
beforeAll(async () => {
  t = await startTestApp();
  doc = (await t.request("GET", "/openapi.json")).body;
});
afterAll(() => t.close());

describe("OpenAPI document", () => {
  test("is a valid OpenAPI 3.1 document", async () => {
    expect(doc.openapi).toStartWith("3.1");
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  test("every route appears with its request schemas, response schema and error statuses", () => {
    const routes = buildApp(t.rt).routes.filter(
      (r: { path: string }) => !["/docs", "/docs/assets/standalone.js", "/docs/assets/reference.js", "/openapi.json", "/openapi/raw.json"].includes(r.path),
    );
    for (const r of routes) {
      const path = r.path.replace(/:([a-z_]+)/g, "{$1}");
      const op = doc.paths[path]?.[r.method.toLowerCase()];
      // append-only records answer 405 to the verbs they refuse: such a method is no operation to
      // document (the records' own GET/POST descriptions say it), and only it is left out
      const declared = Object.keys((r.hooks as { response?: object }).response ?? {});
      const refusesOnly = declared.includes("405") && !declared.some((s) => /^2\d\d$/.test(s));
      expect({ route: `${r.method} ${path}`, documented: !!op }).toEqual({ route: `${r.method} ${path}`, documented: !refusesOnly });
      if (refusesOnly) continue;
      const statuses = Object.keys(op.responses ?? {});
      expect({ path, success: statuses.some((s) => /^2\d\d$/.test(s)) }).toEqual({ path, success: true });
      if (!["/api/ping", "/api/health"].includes(path)) expect({ path, errors: statuses.some((s) => /^4\d\d$/.test(s)) }).toEqual({ path, errors: true });
      if (["POST", "PATCH", "PUT"].includes(r.method) && (r.hooks as { body?: unknown }).body) {
        expect(op.requestBody?.content?.["application/json"]?.schema).toBeDefined();
      }
    }
  });

  test("a create route documents its body fields and 422 shape", () => {
    const op = doc.paths["/api/v1/{org_id}/locations"].post;
    const schema = op.requestBody.content["application/json"].schema;
    expect(schema.required).toEqual(["name", "timezone"]);
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(["201", "401", "403", "404", "409", "422"]));
  });

  test("the interactive reference is served at /docs", async () => {
    const r = await t.request("GET", "/docs");
    expect(r.status).toBe(200);
    expect(r.text).toContain("/openapi.json");
    // served whole by the service (tests/platform/docs-browser.test.ts checks it in a browser)
    expect(r.text).not.toMatch(/https?:\/\//i);
    expect(r.headers.get("content-security-policy")).toStartWith("default-src 'self'; script-src 'self';");
    const asset = await t.request("GET", "/docs/assets/standalone.js");
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    // the page and its assets are not API operations
    expect(Object.keys(doc.paths).filter((p) => p.startsWith("/docs"))).toEqual([]);
  });
});

describe("schema conversion", () => {
  test("record schemas keep their `id` property", () => {
    const loc = doc.paths["/api/v1/{org_id}/locations/{location_id}"].get.responses["200"].content["application/json"].schema;
    expect(loc.properties.id).toEqual({ type: "string" });
    expect(loc.required).toContain("id");
    expect(loc.id).toBeUndefined();
  });
});
