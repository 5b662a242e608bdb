import { z } from "zod";
import { declaredSchema } from "./response-schemas";

type Json = Record<string, unknown>;

/**
 * zod -> JSON Schema for the OpenAPI document. Each route's schema is emitted on
 * its own, so shared definitions are inlined (a `$defs` reference would point
 * into the wrong document). Request shapes use zod's input view (defaults make
 * a field optional).
 */
export function zodToOpenApiSchema(schema: z.ZodType): Json {
  const out = z.toJSONSchema(declaredSchema(schema), { unrepresentable: "any", io: "input", reused: "inline" }) as Json;
  const defs = (out.$defs ?? {}) as Record<string, Json>;
  delete out.$defs;
  delete out.$schema;
  // `isMap`: the node is a name -> schema map (properties, $defs), whose keys are
  // field names; elsewhere an `id` key is zod's registry id, not part of the schema.
  const inline = (node: unknown, isMap = false): unknown => {
    if (Array.isArray(node)) return node.map((n) => inline(n));
    if (!node || typeof node !== "object") return node;
    const n = node as Json;
    if (!isMap && typeof n.$ref === "string" && n.$ref.startsWith("#/$defs/")) {
      const { $ref, ...rest } = n;
      return { ...(inline(defs[$ref.slice("#/$defs/".length)]) as Json), ...rest };
    }
    const copy: Json = {};
    for (const [k, v] of Object.entries(n)) {
      if (!isMap && k === "id" && typeof v === "string") continue;
      // our list of derived fields is not JSON Schema's boolean readOnly
      if (!isMap && k === "readOnly" && Array.isArray(v)) {
        copy["x-read-only-fields"] = v;
        continue;
      }
      copy[k] = inline(v, !isMap && (k === "properties" || k === "patternProperties"));
    }
    return copy;
  };
  return inline(out) as Json;
}
