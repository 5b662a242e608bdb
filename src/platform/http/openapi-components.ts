import type { z } from "zod";

// Named schemas in the OpenAPI document (the dental vocabulary's enums,
// docs/clinical/charting.md): a schema a domain declares with `openApiComponent(name, schema)`
// is written once, as `components/schemas/<name>`, and every place the document
// used it points there with a `$ref`.
//
// How a use is recognised: the declaration puts the name in the schema's zod
// metadata under COMPONENT_KEY, and zod copies metadata into the JSON Schema it
// generates, also through the wrappers a use adds (`.optional()`,
// `.nullable()`, `.describe()`, arrays, unions). So the generated document
// carries the name on each use of that very schema (not on another schema that
// merely looks the same), and `nameComponents` turns each such node into a
// `$ref`. The platform never imports a domain: the domains fill the list below
// when app.ts loads them, before the document is first built.

type Json = Record<string, any>;

/** The metadata key (and, until `nameComponents` runs, the JSON Schema key) naming a component. */
export const COMPONENT_KEY = "x-component";
export const COMPONENT_PREFIX = "#/components/schemas/";

const declared = new Map<string, z.ZodType[]>();

/**
 * Declares `schema` as the component `name` and answers the schema to use: the
 * same schema carrying the name. Each use of it (and of what a use derives
 * from it by wrapping or describing) becomes `$ref: #/components/schemas/<name>`;
 * an annotation the use adds (its own description, a default) stays beside the `$ref`.
 */
export function openApiComponent<T extends z.ZodType>(name: string, schema: T): T {
  if (!/^[A-Z][A-Za-z0-9]*$/.test(name)) throw new Error(`OpenAPI component name ${JSON.stringify(name)} is not PascalCase`);
  const named = schema.meta({ [COMPONENT_KEY]: name }) as T;
  declared.set(name, [...(declared.get(name) ?? []), named]);
  return named;
}

/**
 * Writes each declared component used in `doc` to `components/schemas` and
 * replaces every use by a `$ref` (keeping what the use adds beside it);
 * `toJsonSchema` is the converter the document's schemas were made with. A name
 * declared twice with different schemas, a name already taken by another
 * component, or a use that drops part of its component is a programming error
 * and throws.
 */
export function nameComponents(doc: Json, toJsonSchema: (schema: z.ZodType) => Json): void {
  const bodies = new Map<string, Json>();
  for (const [name, schemas] of declared) {
    const [first, ...others] = schemas.map((s) => withoutName(toJsonSchema(s)));
    if (others.some((b) => !Bun.deepEquals(b, first, true))) throw new Error(`OpenAPI component ${name} is declared twice with different schemas`);
    bodies.set(name, first!);
  }
  const used = new Map<string, Json>();
  const replace = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(replace);
    if (!node || typeof node !== "object") return node;
    const out: Json = {};
    for (const [k, v] of Object.entries(node)) out[k] = replace(v);
    const name = out[COMPONENT_KEY];
    if (typeof name !== "string") return out;
    const body = bodies.get(name);
    if (!body) throw new Error(`The document names component ${name}, which is not declared`);
    delete out[COMPONENT_KEY];
    used.set(name, body);
    return refTo(name, body, out);
  };
  doc.paths = replace(doc.paths ?? {});
  doc.components ??= {};
  const schemas: Json = (doc.components.schemas ??= {});
  const written = new Set<string>();
  // a component may use another: writing one can add a name to `used`
  for (let pending = [...used.keys()]; pending.length; pending = [...used.keys()].filter((n) => !written.has(n))) {
    for (const name of pending.sort()) {
      if (name in schemas) throw new Error(`OpenAPI component ${name} would replace another schema of that name`);
      schemas[name] = replace(used.get(name));
      written.add(name);
    }
  }
}

/** A use of a component: the `$ref`, and beside it each keyword whose value the use changed (a description, a default). */
function refTo(name: string, body: Json, use: Json): Json {
  const ref: Json = { $ref: `${COMPONENT_PREFIX}${name}` };
  for (const key of Object.keys(body)) {
    if (!(key in use)) throw new Error(`A use of OpenAPI component ${name} drops its ${key}`);
  }
  for (const [key, value] of Object.entries(use)) {
    if (!(key in body) || !Bun.deepEquals(body[key], value, true)) ref[key] = value;
  }
  return ref;
}

function withoutName(schema: Json): Json {
  const { [COMPONENT_KEY]: _, ...body } = schema;
  return body;
}
