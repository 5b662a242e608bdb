import { z } from "zod";

type Json = Record<string, unknown>;

/**
 * zod -> JSON Schema for the OpenAPI document. Each route's schema is emitted on
 * its own, so shared definitions are inlined (a `$defs` reference would point
 * into the wrong document). Request shapes use zod's input view (defaults make
 * a field optional).
 */
export function zodToOpenApiSchema(schema: z.ZodType): Json {
  const out = z.toJSONSchema(schema, { unrepresentable: "any", io: "input", reused: "inline" }) as Json;
  const defs = (out.$defs ?? {}) as Record<string, Json>;
  delete out.$defs;
  delete out.$schema;
  const inline = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(inline);
    if (!node || typeof node !== "object") return node;
    const n = node as Json;
    if (typeof n.$ref === "string" && n.$ref.startsWith("#/$defs/")) {
      const { $ref, ...rest } = n;
      return { ...(inline(defs[$ref.slice("#/$defs/".length)]) as Json), ...rest };
    }
    const copy: Json = {};
    for (const [k, v] of Object.entries(n)) if (k !== "id") copy[k] = inline(v);
    return copy;
  };
  return inline(out) as Json;
}
