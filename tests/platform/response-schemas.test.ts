import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { z } from "zod";
import { applyResponseSchemaMode, declaredSchema, type ResponseSchemaMode } from "@/platform/http/response-schemas";
import { httpCore } from "@/platform/http/core";
import { startTestApp, type TestApp } from "@tests/helpers";

let host: TestApp;
beforeAll(async () => {
  host = await startTestApp();
});
afterAll(async () => {
  await host.close();
});

const Thing = z.object({ id: z.string(), name: z.string().trim() });

/** A route whose answer carries a key its schema doesn't name, and one that parsing would change. */
function app(mode: ResponseSchemaMode) {
  const a = new Elysia()
    .use(httpCore(host.rt)) // the service's error model: a response that fails its schema is a 500
    .get("/leaky", () => ({ id: "t1", name: "Molar", password_hash: "secret" }), { response: { 200: Thing } })
    .get("/untrimmed", () => ({ id: "t2", name: " Molar " }), { response: { 200: Thing } })
    .get("/exact", () => ({ id: "t3", name: "Molar" }), { response: { 200: Thing } });
  applyResponseSchemaMode(a, mode);
  return a;
}
const call = async (mode: ResponseSchemaMode, path: string) => {
  const r = await app(mode).handle(new Request(`http://localhost${path}`));
  return { status: r.status, text: await r.text() };
};

describe("response schema modes", () => {
  test("strict (the test suite): an answer with a key its schema doesn't name fails instead of being stripped", async () => {
    const leaky = await call("strict", "/leaky");
    expect(leaky.status).toBe(500);
    expect(leaky.text).toBe('{"detail":"Internal server error","code":"internal_error"}');
    expect((await call("strict", "/untrimmed")).status).toBe(500);
    expect(await call("strict", "/exact")).toEqual({ status: 200, text: '{"id":"t3","name":"Molar"}' });
  });

  test("trust (production): the answer is sent as the serializer built it, without parsing", async () => {
    expect(await call("trust", "/leaky")).toEqual({ status: 200, text: '{"id":"t1","name":"Molar","password_hash":"secret"}' });
    expect(await call("trust", "/exact")).toEqual({ status: 200, text: '{"id":"t3","name":"Molar"}' });
  });

  test("validate: Elysia's own behaviour, the parsed answer", async () => {
    expect(await call("validate", "/leaky")).toEqual({ status: 200, text: '{"id":"t1","name":"Molar"}' });
  });

  test("the stand-in leads back to the declared schema (the OpenAPI document is built from it)", () => {
    const a = app("trust");
    const route = a.router.history.find((r) => r.path === "/exact")!;
    const standIn = (route.hooks as { response: Record<string, object> }).response[200]!;
    expect(standIn).not.toBe(Thing);
    expect(declaredSchema(standIn)).toBe(Thing);
  });
});

describe("the OpenAPI document does not depend on the mode", () => {
  let strict: TestApp, trust: TestApp;
  beforeAll(async () => {
    strict = await startTestApp();
    trust = await startTestApp({ RESPONSE_SCHEMAS: "trust" });
  });
  afterAll(async () => {
    await strict.close();
    await trust.close();
  });

  test("the same document in strict and trust mode, with the response schemas in it", async () => {
    expect(strict.config.responseSchemas).toBe("strict");
    expect(trust.config.responseSchemas).toBe("trust");
    const a = await strict.request("GET", "/openapi.json");
    const b = await trust.request("GET", "/openapi.json");
    expect(a.status).toBe(200);
    expect(b.text).toBe(a.text);
    const location = a.body.paths["/api/v1/{org_id}/locations/{location_id}"].get.responses["200"].content["application/json"].schema;
    expect(Object.keys(location.properties)).toContain("timezone");
  });

  test("a real read answers the same in both modes", async () => {
    for (const t of [strict, trust]) {
      const token = await t.adminToken();
      const org = await t.createOrg(token);
      const created = await t.request("POST", `/api/v1/${org.id}/locations`, { token, body: { name: "Downtown", timezone: "America/Chicago" } });
      const read = await t.request("GET", `/api/v1/${org.id}/locations/${created.body.id}`, { token });
      expect(read.status).toBe(200);
      expect(read.body).toEqual(created.body);
      expect(read.headers.get("etag")).toBe('"1"');
    }
  });
});
