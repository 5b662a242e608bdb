// Named schemas in the OpenAPI document (src/platform/http/openapi-components.ts):
// each enum of the dental vocabulary is one component, every operation that
// uses it points there with a $ref, and no inline copy of it is left.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { z } from "zod";
import { startTestApp, type TestApp } from "@tests/helpers";
import { CONDITION_SEVERITIES, CONDITION_STATUSES, CONDITION_TYPES, PROCEDURE_STATUSES, TOOTH_STATUSES, UNIVERSAL_TEETH } from "@db/tenant/dental-vocabulary";
import { COMPONENT_KEY, nameComponents, openApiComponent } from "@/platform/http/openapi-components";
import { zodToOpenApiSchema } from "@/platform/http/json-schema";

type Json = Record<string, any>;

/** Each vocabulary enum, its component and operations that use it (request or answer). */
const VOCABULARY: Record<string, { values: readonly string[]; usedBy: string[] }> = {
  ToothStatusValue: {
    values: TOOTH_STATUSES,
    usedBy: [
      "PUT /api/v1/{org_id}/clinical/patients/{patient_uuid}/tooth-statuses",
      "GET /api/v1/{org_id}/clinical/patients/{patient_uuid}/tooth-statuses",
      "GET /api/v1/{org_id}/clinical/patients/{patient_uuid}/chart/at-date",
      "POST /api/v1/{org_id}/odontogram/macros",
    ],
  },
  ProcedureStatus: {
    values: PROCEDURE_STATUSES,
    usedBy: [
      "PATCH /api/v1/{org_id}/clinical/procedures/{procedure_uuid}",
      "GET /api/v1/{org_id}/clinical/patients/{patient_uuid}/procedures",
      "GET /api/v1/{org_id}/clinical/patients/{patient_uuid}/spans",
      "GET /api/v1/{org_id}/clinical/patients/{patient_uuid}/treatment-plans",
      "POST /api/v1/{org_id}/odontogram/macros",
    ],
  },
  ConditionType: {
    values: CONDITION_TYPES,
    usedBy: [
      "POST /api/v1/{org_id}/clinical/patients/{patient_uuid}/conditions",
      "GET /api/v1/{org_id}/clinical/patients/{patient_uuid}/conditions",
      "PATCH /api/v1/{org_id}/clinical/conditions/{condition_uuid}",
      "POST /api/v1/{org_id}/odontogram/macros",
    ],
  },
  ConditionStatus: {
    values: CONDITION_STATUSES,
    usedBy: ["POST /api/v1/{org_id}/clinical/patients/{patient_uuid}/conditions", "PATCH /api/v1/{org_id}/odontogram/macros/{macro_uuid}"],
  },
  ConditionSeverity: {
    values: CONDITION_SEVERITIES,
    usedBy: ["GET /api/v1/{org_id}/clinical/conditions/{condition_uuid}", "POST /api/v1/{org_id}/odontogram/macros"],
  },
  UniversalToothNumber: {
    values: UNIVERSAL_TEETH,
    usedBy: ["POST /api/v1/{org_id}/codes/explosion-codes", "POST /api/v1/{org_id}/codes/explosion-codes/{explosion_code_uuid}/explode"],
  },
};

/** Every node of `root` with its JSON pointer. */
function* nodes(root: unknown, pointer = ""): Generator<[string, Json]> {
  if (!root || typeof root !== "object") return;
  if (!Array.isArray(root)) yield [pointer, root as Json];
  for (const [k, v] of Object.entries(root)) yield* nodes(v, `${pointer}/${k}`);
}

let t: TestApp;
let doc: any;
beforeAll(async () => {
  t = await startTestApp();
  doc = (await t.request("GET", "/openapi.json")).body;
});
afterAll(() => t.close());

describe("the dental vocabulary's enums in the OpenAPI document", () => {
  test.each(Object.entries(VOCABULARY))("%s is one component, with the vocabulary's values", (name, { values }) => {
    expect(doc.components.schemas[name]).toMatchObject({ type: "string", enum: [...values] });
  });

  test.each(Object.entries(VOCABULARY))("%s is referenced by $ref from the operations that use it", (name, { usedBy }) => {
    const ref = `#/components/schemas/${name}`;
    const using = (key: string) => {
      const [method, path] = key.split(" ") as [string, string];
      const op = doc.paths[path]?.[method.toLowerCase()];
      return [...nodes(op)].some(([, n]) => n.$ref === ref);
    };
    expect(usedBy.filter((key) => !using(key))).toEqual([]);
  });

  test("no inline copy of a vocabulary enum is left, and no component marker", () => {
    const lists = Object.entries(VOCABULARY).map(([name, { values }]) => [name, JSON.stringify([...values].sort())] as const);
    const copies: string[] = [];
    for (const [pointer, n] of nodes(doc.paths, "#/paths")) {
      if (COMPONENT_KEY in n) copies.push(`${pointer}: ${COMPONENT_KEY} left`);
      if (!Array.isArray(n.enum)) continue;
      const values = JSON.stringify([...n.enum].sort());
      for (const [name, list] of lists) if (values === list) copies.push(`${pointer}: an inline copy of ${name}`);
    }
    expect(copies).toEqual([]);
    expect(JSON.stringify(doc.components)).not.toContain(COMPONENT_KEY);
  });

  test("a use that adds its own description keeps it beside the $ref", () => {
    const patch = doc.paths["/api/v1/{org_id}/clinical/procedures/{procedure_uuid}"].patch;
    expect(patch.requestBody.content["application/json"].schema.properties.status).toEqual({
      $ref: "#/components/schemas/ProcedureStatus",
      description: expect.stringContaining("transition table"),
    });
  });
});

describe("nameComponents", () => {
  const Colour = openApiComponent("TestColour", z.enum(["red", "green"]));
  const docOf = (schema: z.ZodType): Json => ({
    paths: { "/x": { post: { requestBody: { content: { "application/json": { schema: zodToOpenApiSchema(schema) } } } } } },
  });
  const bodyOf = (d: Json) => d.paths["/x"].post.requestBody.content["application/json"].schema;

  test("a declared schema becomes the component; its uses, also wrapped or described, become $refs", () => {
    const d = docOf(z.object({ a: Colour, b: Colour.nullable(), c: Colour.optional().describe("the c"), d: z.array(Colour), e: Colour.describe("the e") }));
    nameComponents(d, zodToOpenApiSchema);
    const ref = "#/components/schemas/TestColour";
    expect(d.components.schemas.TestColour).toEqual({ type: "string", enum: ["red", "green"] });
    expect(bodyOf(d).properties).toEqual({
      a: { $ref: ref },
      b: { anyOf: [{ $ref: ref }, { type: "null" }] },
      c: { $ref: ref, description: "the c" },
      d: { type: "array", items: { $ref: ref } },
      e: { $ref: ref, description: "the e" },
    });
  });

  test("a schema that only looks the same, or is derived with other values, stays inline; unused components are not written", () => {
    const d = docOf(z.object({ same: z.enum(["red", "green"]), fewer: Colour.extract(["red"]) }));
    nameComponents(d, zodToOpenApiSchema);
    expect(bodyOf(d).properties).toEqual({ same: { type: "string", enum: ["red", "green"] }, fewer: { type: "string", enum: ["red"] } });
    expect(d.components.schemas).toEqual({});
  });

  test("a component name another schema already has is refused", () => {
    const d = docOf(z.object({ a: Colour }));
    d.components = { schemas: { TestColour: { type: "string" } } };
    expect(() => nameComponents(d, zodToOpenApiSchema)).toThrow("would replace another schema");
  });
});
