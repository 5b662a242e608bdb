// The OpenAPI document as a product (docs/system/api-reference-document.md): what a
// client generator and a reader of /docs rely on. Each rule collects the
// operations that break it, so a failure names them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { Validator } from "@seriousme/openapi-schema-validator";
import { Document, Spectral } from "@stoplight/spectral-core";
import { Json } from "@stoplight/spectral-parsers";
import { oas } from "@stoplight/spectral-rulesets";
import type { z } from "zod";
import { startTestApp, type TestApp } from "@tests/helpers";
import { buildApp } from "@/app";
import { declaredSchema } from "@/platform/http/response-schemas";
import { isPublicRoute, openApiPath } from "@/platform/http/openapi-document";

type Op = { key: string; method: string; path: string; op: any; route?: Route };
type Route = { method: string; path: string; hooks: any };

const METHODS = new Set(["get", "put", "post", "patch", "delete"]);
/** The booking pipeline (README.md "Book an appointment", docs/scheduling/appointments.md): its writes carry request examples. */
const BOOKING_TAG = "Appointments";

let t: TestApp;
let doc: any;
let ops: Op[];

beforeAll(async () => {
  t = await startTestApp();
  doc = (await t.request("GET", "/openapi.json")).body;
  const routes = new Map<string, Route>();
  for (const r of buildApp(t.rt).routes as Route[]) routes.set(`${r.method.toUpperCase()} ${openApiPath(r.path)}`, r);
  ops = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const [m, op] of Object.entries(item)) {
      if (!METHODS.has(m)) continue;
      const key = `${m.toUpperCase()} ${path}`;
      ops.push({ key, method: m.toUpperCase(), path, op, route: routes.get(key) });
    }
  }
});
afterAll(() => t.close());

/** The operations for which `problem` returns a message, as "METHOD /path: message". */
function offenders(problem: (o: Op) => string | false | undefined | null): string[] {
  const out: string[] = [];
  for (const o of ops) {
    const p = problem(o);
    if (p) out.push(`${o.key}: ${p}`);
  }
  return out;
}

describe("the OpenAPI document", () => {
  test("is a valid OpenAPI 3.1 document", async () => {
    expect(doc.openapi).toStartWith("3.1");
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  test("every operation has a summary and a tag declared with a description", () => {
    expect(ops.length).toBeGreaterThan(400);
    const declared = new Map<string, string>((doc.tags ?? []).map((tag: { name: string; description?: string }) => [tag.name, tag.description ?? ""]));
    expect(offenders(({ op }) => !(typeof op.summary === "string" && op.summary.trim()) && "no summary")).toEqual([]);
    expect(offenders(({ op }) => !(Array.isArray(op.tags) && op.tags.length) && "no tag")).toEqual([]);
    expect(
      offenders(({ op }) => {
        const bad = (op.tags ?? []).filter((tag: string) => !declared.get(tag)?.trim());
        return bad.length > 0 && `tags not declared at the top level with a description: ${bad.join(", ")}`;
      }),
    ).toEqual([]);
    // no declared tag is left without operations (a renamed tag leaves its old entry behind)
    const used = new Set(ops.flatMap(({ op }) => op.tags ?? []));
    expect([...declared.keys()].filter((name) => !used.has(name))).toEqual([]);
  });

  test("every operation has a readable operationId, unique across the document", () => {
    expect(
      offenders(({ op }) => !/^[a-z][A-Za-z0-9]*$/.test(op.operationId ?? "") && `operationId ${JSON.stringify(op.operationId)} is not camelCase`),
    ).toEqual([]);
    const seen = new Map<string, string>();
    expect(
      offenders(({ key, op }) => {
        const first = seen.get(op.operationId);
        if (!first) seen.set(op.operationId, key);
        return first && `operationId ${op.operationId} is also ${first}`;
      }),
    ).toEqual([]);
    // stable: derived from the method and path, not from the wording of a summary
    const id = (key: string) => ops.find((o) => o.key === key)?.op.operationId;
    expect(id("GET /api/v1/{org_id}/patients")).toBe("listPatients");
    expect(id("POST /api/v1/{org_id}/appointments")).toBe("createAppointment");
    expect(id("GET /api/v1/{org_id}/appointments/{appointment_id}")).toBe("getAppointment");
    expect(id("PATCH /api/v1/{org_id}/appointments/{appointment_id}")).toBe("updateAppointment");
    expect(id("POST /api/v1/{org_id}/appointments/{appointment_id}/status")).toBe("setAppointmentStatus");
    expect(id("POST /api/v1/{org_id}/patients/{patient_uuid}/archive")).toBe("archivePatient");
    expect(id("POST /api/v1/auth/login")).toBe("loginAuth");
  });

  test("every error status answers the Error or ValidationError component", () => {
    const error = doc.components?.schemas?.Error;
    const validation = doc.components?.schemas?.ValidationError;
    expect(error?.required).toEqual(["detail", "code"]);
    expect(validation?.properties?.detail?.type).toBe("array");
    expect(
      offenders(({ key, op }) => {
        const bad: string[] = [];
        for (const [status, response] of Object.entries(op.responses ?? {}) as [string, any][]) {
          if (Number(status) < 400) continue;
          // the readiness probe answers its report (which checks failed) with 503
          if (key === "GET /api/health" && status === "503") continue;
          const expected = status === "422" ? "#/components/schemas/ValidationError" : "#/components/schemas/Error";
          const ref = response.content?.["application/json"]?.schema?.$ref;
          if (ref !== expected) bad.push(`${status} answers ${ref ?? "an inline schema"}, not ${expected}`);
          if (!response.description || /^Response for status/.test(response.description)) bad.push(`${status} has no description of its own`);
        }
        return bad.join("; ");
      }),
    ).toEqual([]);
  });

  test("every $ref resolves to a component of the document", () => {
    const broken: string[] = [];
    let count = 0;
    const walk = (node: unknown, where: string) => {
      if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${where}/${i}`));
      if (!node || typeof node !== "object") return;
      for (const [k, v] of Object.entries(node)) {
        if (k === "$ref" && typeof v === "string") {
          count++;
          const target = v.startsWith("#/components/")
            ? v
                .slice(2)
                .split("/")
                .reduce((n: any, part) => n?.[part.replace(/~1/g, "/").replace(/~0/g, "~")], doc)
            : undefined;
          if (target === undefined) broken.push(`${where}: ${v}`);
        } else walk(v, `${where}/${k}`);
      }
    };
    walk(doc, "#");
    expect(broken).toEqual([]);
    expect(count).toBeGreaterThan(400);
  });

  test("bearer is the default security; public routes, and only they, say security: []", () => {
    expect(doc.components.securitySchemes.bearer).toEqual({ type: "http", scheme: "bearer", bearerFormat: "JWT" });
    expect(doc.security).toEqual([{ bearer: [] }]);
    const publicOps = ops.filter((o) => o.route && isPublicRoute(o.route.hooks)).map((o) => o.key);
    expect(publicOps).toEqual(expect.arrayContaining(["POST /api/v1/auth/login", "GET /api/ping", "GET /api/health"]));
    expect(
      offenders(({ key, op, route }) => {
        if (!route) return "no route serves this operation";
        const isPublic = publicOps.includes(key);
        if (isPublic) return !(Array.isArray(op.security) && op.security.length === 0) && "a public route without security: []";
        return op.security !== undefined && `declares security ${JSON.stringify(op.security)} instead of inheriting bearer`;
      }),
    ).toEqual([]);
  });

  test("every authenticated POST documents Idempotency-Key and its 409", () => {
    expect(doc.components.parameters.IdempotencyKey).toMatchObject({ name: "Idempotency-Key", in: "header", required: false });
    expect(
      offenders(({ method, op }) => {
        if (method !== "POST" || (Array.isArray(op.security) && op.security.length === 0)) return;
        const hasKey = (op.parameters ?? []).some((p: any) => p.$ref === "#/components/parameters/IdempotencyKey");
        return (!hasKey && "no Idempotency-Key parameter") || (!op.responses?.["409"] && "no 409 (idempotency_conflict)");
      }),
    ).toEqual([]);
  });

  test("every org operation documents its 503 (database unavailable; a write held by a shard move)", () => {
    expect(
      offenders(({ path, op }) => {
        if (!path.startsWith("/api/v1/{org_id}/")) return;
        const r = op.responses?.["503"];
        return (!r && "no 503") || (r.content?.["application/json"]?.schema?.$ref !== "#/components/schemas/Error" && "503 without the Error schema");
      }),
    ).toEqual([]);
    expect(doc.paths["/api/v1/{org_id}/patients/{patient_uuid}"].patch.responses["503"].description).toContain("move to another shard");
    expect(doc.paths["/api/v1/{org_id}/patients/{patient_uuid}"].get.responses["503"].description).not.toContain("move");
  });
});

/**
 * The one finding of Redocly's recommended ruleset the document keeps: the
 * categories of documents (`documents/categories/{category_uuid}`) and a
 * document's action paths (`documents/{document_uuid}/archive`, ...) match the
 * same templates. The service tells them apart (a static segment wins, and a
 * document id is a UUID, never "categories"); renaming public paths to please
 * the rule would break clients. Exactly these, no more and no fewer.
 */
const ACCEPTED_AMBIGUITY = "/api/v1/{org_id}/documents/categories/{category_uuid}";

describe("outside linters, in process", () => {
  test("Redocly's recommended ruleset: no error, no warning", async () => {
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lintFromString({ source: JSON.stringify(doc, null, 2), absoluteRef: "/openapi.json", config });
    const where = (p: (typeof problems)[number]) => p.location[0]?.pointer ?? "";
    const accepted = problems.filter((p) => p.ruleId === "no-ambiguous-paths" && p.severity === "warn" && p.message.includes(`\`${ACCEPTED_AMBIGUITY}\``));
    const report = problems.filter((p) => !accepted.includes(p)).map((p) => `${p.severity} ${p.ruleId} at ${where(p)}: ${p.message}`);
    expect(report).toEqual([]);
    // the accepted ambiguity is exactly one finding per action path of a document
    const actionPaths = Object.keys(doc.paths).filter((path) => /^\/api\/v1\/\{org_id\}\/documents\/\{document_uuid\}\/[^/{]+$/.test(path));
    expect(accepted.map((p) => decodePointerPath(where(p))).sort()).toEqual(actionPaths.sort());
  }, 60_000);

  test("Spectral's spectral:oas ruleset: no error, no warning", async () => {
    const spectral = new Spectral();
    spectral.setRuleset({ extends: [[oas as never, "recommended"]] });
    const results = await spectral.run(new Document(JSON.stringify(doc, null, 2), Json, "/openapi.json"));
    const severity = ["error", "warning", "info", "hint"];
    // info and hint are advice, not findings: the target is no error and no warning
    const findings = results.filter((r) => r.severity <= 1).map((r) => `${severity[r.severity]} ${r.code} at ${r.path.join(".")}: ${r.message}`);
    expect(findings).toEqual([]);
  }, 60_000);
});

/** `#/paths/~1api~1v1~1x` -> `/api/v1/x` */
function decodePointerPath(pointer: string): string {
  return (pointer.split("/")[2] ?? "").replace(/~1/g, "/").replace(/~0/g, "~");
}

describe("the document's own parts", () => {
  test("paths are written without a trailing slash; the server is the origin serving the document", () => {
    expect(Object.keys(doc.paths).filter((path) => path !== "/" && path.endsWith("/"))).toEqual([]);
    expect(doc.servers).toEqual([{ url: "/", description: expect.any(String) }]);
    expect(doc.info.license?.name).toBeTruthy();
    expect(doc.info.contact?.name).toBeTruthy();
  });

  test("every operation says what it does and documents a success answer", () => {
    expect(offenders(({ op }) => !(typeof op.description === "string" && op.description.trim().length >= 20) && "no description")).toEqual([]);
    expect(offenders(({ op }) => !Object.keys(op.responses ?? {}).some((s) => /^2\d\d$/.test(s)) && "no 2xx response")).toEqual([]);
  });

  test("a request body is required exactly when the route refuses an absent one", () => {
    expect(
      offenders(({ op, route }) => {
        if (!op.requestBody || !route?.hooks?.body) return;
        const schema = declaredSchema(route.hooks.body) as z.ZodType;
        // the rule request-validation.ts applies: an absent body is validated as undefined
        const required = !schema.safeParse(undefined).success;
        return (
          op.requestBody.required !== required && `requestBody.required is ${op.requestBody.required}; the route ${required ? "refuses" : "accepts"} no body`
        );
      }),
    ).toEqual([]);
    const optional = (key: string) => ops.find((o) => o.key === key)?.op.requestBody?.required;
    expect(optional("POST /api/v1/{org_id}/odontogram/macros/{macro_uuid}/expand")).toBe(false);
    expect(optional("POST /api/v1/{org_id}/documents/{document_uuid}/signatures/{signature_uuid}/cancel")).toBe(false);
    expect(optional("POST /api/v1/{org_id}/revenue-module/lists/{list_uuid}/execute")).toBe(false);
    expect(optional("POST /api/v1/{org_id}/appointments")).toBe(true);
  });
});

describe("descriptions", () => {
  test("an operation whose route declares a 409 says when it happens", () => {
    expect(
      offenders(({ op, route }) => {
        const declares409 = !!route?.hooks?.response && typeof route.hooks.response === "object" && "409" in route.hooks.response;
        return declares409 && !op.description?.trim() && "declares 409 but has no description";
      }),
    ).toEqual([]);
  });

  test("a paged list states its paging parameters and limits", () => {
    expect(
      offenders(({ op }) => {
        const param = (name: string) => (op.parameters ?? []).find((p: any) => p.in === "query" && p.name === name);
        const size = param("page_size") ?? (param("offset") && param("limit"));
        if (!size) return;
        const text = op.description ?? "";
        const { default: d, maximum: max } = size.schema;
        return (
          !(text.includes(String(d)) && text.includes(String(max)) && /page_size|offset/.test(text)) && `description does not state ${size.name} ${d}/${max}`
        );
      }),
    ).toEqual([]);
  });

  test("an operation taking base_version says a stale one is 409 version_conflict", () => {
    expect(
      offenders(({ op }) => {
        const inBody = !!op.requestBody?.content?.["application/json"]?.schema?.properties?.base_version;
        const inQuery = (op.parameters ?? []).some((p: any) => p.in === "query" && p.name === "base_version");
        return (inBody || inQuery) && !/version_conflict|stale/.test(op.description ?? "") && "takes base_version; the description does not name the 409";
      }),
    ).toEqual([]);
  });
});

describe("request examples", () => {
  const bookingWrites = () => ops.filter((o) => ["POST", "PATCH", "PUT"].includes(o.method) && (o.op.tags ?? []).includes(BOOKING_TAG));

  test("every write of the booking pipeline has a request body example", () => {
    expect(bookingWrites().map((o) => o.key)).toEqual(
      expect.arrayContaining([
        "POST /api/v1/{org_id}/appointments",
        "PATCH /api/v1/{org_id}/appointments/{appointment_id}",
        "POST /api/v1/{org_id}/appointments/{appointment_id}/status",
        "POST /api/v1/{org_id}/appointments/{appointment_id}/confirmation",
      ]),
    );
    expect(
      offenders((o) => {
        if (!bookingWrites().includes(o)) return;
        const media = o.op.requestBody?.content?.["application/json"];
        return media?.example === undefined && "no request body example";
      }),
    ).toEqual([]);
  });

  test("every request example is valid for the route's own schema", () => {
    let checked = 0;
    expect(
      offenders(({ op, route }) => {
        const media = op.requestBody?.content?.["application/json"];
        const examples = [...(media?.example !== undefined ? [media.example] : []), ...(media?.schema?.examples ?? [])];
        if (!examples.length) return;
        if (!route?.hooks?.body) return "has examples but no body schema to check them with";
        const schema = declaredSchema(route.hooks.body) as z.ZodType;
        const bad: string[] = [];
        for (const example of examples) {
          checked++;
          const r = schema.safeParse(example);
          if (!r.success) bad.push(`${JSON.stringify(example)}: ${r.error.issues.map((i) => `${i.path.join(".")} ${i.message}`).join("; ")}`);
        }
        return bad.join(" | ");
      }),
    ).toEqual([]);
    expect(checked).toBeGreaterThan(0);
  });
});
