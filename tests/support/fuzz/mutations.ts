// The mutations: each one changes a valid-looking request in one way (wrong
// types, missing or unknown fields, out-of-range, huge, deep or wide values,
// malformed JSON, other media types, odd query numbers, ids of another org,
// bad credentials, idempotent replays, ...) and records what the contract then
// requires of the answer. Which mutations apply, and where, is read from the
// operation's schemas: no operation is named here.
import type { Rng } from "./rng";
import { stem } from "./pools";
import { fits } from "./schema";
import { tenantParam, type Schema, type Spec } from "./spec";
import { isIdName, outOfRange, wrongType } from "./values";
import { authenticate, bodyLimitsOf, bodyValue, freeQuery, getQuery, readBody, setParam, setQuery, type FuzzRequest, type World } from "./request";

/** A place in a body value, with the schema that describes it. */
type Slot = { path: (string | number)[]; schema: Schema; required: boolean; name: string };

/** Stands in for raw JSON text while the rest of the body is serialized. */
const RAW = "__fuzz_raw__";
const ODD_INTEGERS = ["0x10", "1e2", "+5", " 5", "5 ", "5.0", "1_000", "０５", "Infinity", "NaN", "-0x1", "0b11", "5e-1", "9007199254740993", "", "1,2"];
const MALFORMED = [
  (j: string) => j.slice(0, Math.max(1, Math.floor(j.length / 2))),
  (j: string) => `${j}}`,
  (j: string) => `${j} trailing`,
  (j: string) => j.replace(/"/g, "'"),
  (j: string) => j.replace(/"([a-z_]+)":/g, "$1:"),
  (j: string) => (j.endsWith("}") ? `${j.slice(0, -1)},}` : `${j},`),
  () => "{",
  () => "nul",
  () => '{"a": NaN}',
  () => '{"a": undefined}',
  () => "/* comment */ {}",
  () => '{"a":"\\x41"}',
  () => '{"a": 01}',
  () => "\u0000",
  () => "[1, 2,]",
];
const CONTENT_TYPES = [
  "text/plain",
  "application/xml",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/jsonx",
  "text/json",
  "image/png",
  "*/*",
  "application/octet-stream",
  "garbage",
];

/** Every place in a body value that its schema describes (the root, properties, items). */
function slots(
  value: unknown,
  schema: Schema,
  deref: (s: Schema) => Schema,
  path: (string | number)[] = [],
  required = true,
  name = "body",
  out: Slot[] = [],
): Slot[] {
  const s = resolveFor(value, deref(schema), deref);
  out.push({ path, schema: s, required, name });
  if (path.length > 8) return out;
  if (Array.isArray(value) && s.items) value.forEach((x, i) => slots(x, s.items, deref, [...path, i], true, name, out));
  else if (value && typeof value === "object") {
    const req = new Set<string>(s.required ?? []);
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const p = s.properties?.[k] ?? (typeof s.additionalProperties === "object" ? s.additionalProperties : undefined);
      if (p) slots(v, p, deref, [...path, k], req.has(k), k, out);
    }
  }
  return out;
}

/** The branch of an anyOf/oneOf the value was generated from (so nested slots know their schema). */
function resolveFor(value: unknown, s: Schema, deref: (s: Schema) => Schema): Schema {
  const branches: Schema[] | undefined = s.anyOf ?? s.oneOf;
  if (!Array.isArray(branches)) return s;
  const match = branches.map(deref).find((b) => fits(value, b, deref));
  return match ? { ...s, ...match, anyOf: undefined, oneOf: undefined, _union: s } : s;
}

/** Sets the value at `path` (the root itself for []), returning the root. */
function setAt(root: unknown, path: (string | number)[], v: unknown): unknown {
  if (path.length === 0) return v;
  let node: any = root;
  for (const k of path.slice(0, -1)) node = node[k];
  node[path[path.length - 1]!] = v;
  return root;
}

/** Removes the property or item at `path`. */
function deleteAt(root: unknown, path: (string | number)[]) {
  let node: any = root;
  for (const k of path.slice(0, -1)) node = node[k];
  const k = path[path.length - 1]!;
  if (Array.isArray(node)) node.splice(Number(k), 1);
  else delete node[k];
}

/** The schema a slot must satisfy (the union it came from, not the branch picked). */
const slotSchema = (slot: Slot) => (slot.schema._union as Schema | undefined) ?? slot.schema;

/** Whether a body value is valid against the operation's body schema. */
function bodyFits(req: FuzzRequest, w: World, value: unknown): boolean {
  return fits(value, w.spec.deref(req.op.body!.schema), (s) => w.spec.deref(s));
}

/** Puts `raw` JSON text at a slot of the body (for values JSON.stringify cannot write: huge, deep, odd numbers). */
function putRaw(req: FuzzRequest, slot: Slot, raw: string, note: string) {
  touch(req, slot);
  const value = bodyValue(req);
  const marked = JSON.stringify(setAt(value, slot.path, RAW));
  req.body = marked.replace(JSON.stringify(RAW), () => raw);
  if (req.body.length > 2000) req.bodyNote = `${note} at ${where(slot)} (${req.body.length} bytes)`;
}

/** How a slot is named in labels: body.patient_uuid */
const where = (slot: Slot) => (slot.path.length ? `body.${slot.path.join(".")}` : "body");

/** The body's slots a mutation may still change (not inside or around one an earlier mutation changed). */
function bodySlots(req: FuzzRequest, w: World): Slot[] {
  const value = readBody(req);
  if (value === undefined || !req.op.body) return [];
  const touched = [...req.touched];
  return slots(value, req.op.body.schema, (s) => w.spec.deref(s)).filter((slot) => {
    const key = slot.path.join(".");
    return !touched.some((t) => t === key || key.startsWith(`${t}.`) || t.startsWith(key ? `${key}.` : ""));
  });
}

const touch = (req: FuzzRequest, slot: Slot) => req.touched.add(slot.path.join("."));

/** JSON text nested `depth` deep: arrays, objects or both. */
function nested(depth: number, rng: Rng): string {
  const kind = rng.pick(["array", "object", "mixed"]);
  if (kind === "array") return "[".repeat(depth) + "]".repeat(depth);
  if (kind === "object") return '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
  let open = "";
  let close = "";
  for (let i = 0; i < depth; i++) {
    if (i % 2) {
      open += '{"k":';
      close = `}${close}`;
    } else {
      open += "[";
      close = `]${close}`;
    }
  }
  return `${open}0${close}`;
}

// ---- mutations: [name, apply, applicable, weight] ----

/** Changes the request and returns its label, or undefined when it found nothing to change. */
type Apply = (req: FuzzRequest, rng: Rng, w: World) => string | undefined;
/** Whether the mutation applies to the request as it is now. */
type When = (req: FuzzRequest, w: World) => boolean;
/** [name, apply, applies, weight] */
export type Mutation = [string, Apply, When, number];

const hasBody: When = (req) => !!req.op.body && req.body !== undefined && readBody(req) !== undefined;
const hasJsonObjectBody: When = (req) => hasBody(req, undefined as never) && req.body!.startsWith("{");
const isProtected: When = (req) => !req.op.public;

export const MUTATIONS: Mutation[] = [
  [
    "edge value",
    (req, rng, w) => {
      const value = bodyValue(req);
      const candidates = bodySlots(req, w)
        .filter((slot) => slot.path.length > 0)
        .map((slot) => ({ slot, edges: edgeValues(slotSchema(slot), w).filter((v) => fits(v, slotSchema(slot), (x) => w.spec.deref(x))) }))
        .filter((c) => c.edges.length);
      if (!candidates.length) return undefined;
      const { slot, edges } = rng.pick(candidates);
      const edge = rng.pick(edges);
      req.body = JSON.stringify(setAt(value, slot.path, edge));
      touch(req, slot);
      const shown = JSON.stringify(edge);
      return `edge value at ${where(slot)}: ${shown.length > 40 ? `${shown.slice(0, 40)}… (${shown.length} chars)` : shown}`;
    },
    hasBody,
    4,
  ],
  [
    "edge value in query",
    (req, rng, w) => {
      const options = freeQuery(req)
        .map((p) => ({
          p,
          edges: edgeValues(p.schema, w).filter(
            (v) =>
              ((typeof v === "string" && v.isWellFormed()) || typeof v === "number" || typeof v === "boolean") && fits(v, p.schema, (x) => w.spec.deref(x)),
          ),
        }))
        .filter((c) => c.edges.length);
      if (!options.length) return undefined;
      const { p, edges } = rng.pick(options);
      const v = String(rng.pick(edges));
      setParam(req, p.name, v);
      return `edge query ${p.name}=${v.length > 30 ? `${v.slice(0, 30)}…` : v}`;
    },
    (req) => freeQuery(req).length > 0,
    2,
  ],
  [
    "missing required field",
    (req, rng, w) => {
      const value = bodyValue(req);
      const candidates = bodySlots(req, w).filter((s) => s.path.length > 0 && s.required && typeof s.path[s.path.length - 1] === "string");
      if (!candidates.length) return undefined;
      const slot = rng.pick(candidates);
      deleteAt(value, slot.path);
      req.body = JSON.stringify(value);
      touch(req, slot);
      if (!bodyFits(req, w, value)) req.expect.bodyRefuse.push("a required field is missing");
      return `missing required ${where(slot)}`;
    },
    hasJsonObjectBody,
    3,
  ],
  [
    "wrong type",
    (req, rng, w) => {
      const value = bodyValue(req);
      const ctx = { rng, deref: (s: Schema) => w.spec.deref(s) } as never;
      const candidates = bodySlots(req, w)
        .map((slot) => ({ slot, bad: wrongType(slotSchema(slot), ctx) }))
        .filter((c) => c.bad !== undefined);
      if (!candidates.length) return undefined;
      const { slot, bad } = rng.pick(candidates);
      const changed = setAt(value, slot.path, bad);
      req.body = JSON.stringify(changed);
      if (!bodyFits(req, w, changed)) req.expect.bodyRefuse.push("a field has the wrong type");
      touch(req, slot);
      return `wrong type at ${where(slot)}: ${JSON.stringify(bad)}`;
    },
    hasBody,
    4,
  ],
  [
    "out of range",
    (req, rng, w) => {
      const value = bodyValue(req);
      const ctx = { rng, deref: (s: Schema) => w.spec.deref(s), idFor: () => undefined, seenFor: () => undefined, baseVersion: () => undefined, optional: 0 };
      const candidates = bodySlots(req, w)
        .map((slot) => ({ slot, bad: outOfRange(slotSchema(slot), ctx) }))
        .filter((c) => c.bad !== undefined);
      if (!candidates.length) return undefined;
      const { slot, bad } = rng.pick(candidates);
      const changed = setAt(value, slot.path, bad);
      req.body = JSON.stringify(changed);
      if (!bodyFits(req, w, changed)) req.expect.bodyRefuse.push("a value is out of range");
      touch(req, slot);
      const shown = JSON.stringify(bad);
      return `out of range at ${where(slot)}: ${shown.length > 40 ? `${shown.slice(0, 40)}… (${shown.length} chars)` : shown}`;
    },
    hasBody,
    4,
  ],
  [
    "unknown field",
    (req, rng, w) => {
      const value = bodyValue(req) as Record<string, unknown>;
      const key = rng.pick(["fuzz_unknown", "isAdmin", "org_id", "__proto__", "constructor", "tenant_id", "Name", "role"]);
      const raw = JSON.stringify(value);
      req.body = raw === "{}" ? `{"${key}":true}` : `${raw.slice(0, -1)},"${key}":true}`;
      const parsed = JSON.parse(req.body);
      if (Object.hasOwn(parsed, key) && !bodyFits(req, w, parsed)) req.expect.bodyRefuse.push("an unknown field");
      return `unknown field ${key}`;
    },
    hasJsonObjectBody,
    3,
  ],
  [
    "read-only field",
    (req, rng, w) => {
      const value = bodyValue(req) as Record<string, unknown>;
      const props = w.spec.deref(req.op.body!.schema).properties ?? {};
      const names = [...req.op.readOnly, "id", "version", "created_at", "updated_at", "deleted_at"].filter((k) => !(k in props));
      if (!names.length) return undefined;
      const key = rng.pick(names);
      value[key] = key === "version" ? 99 : key.endsWith("_at") ? "2020-01-01T00:00:00Z" : rng.uuid();
      req.body = JSON.stringify(value);
      if (req.op.readOnly.includes(key) || !bodyFits(req, w, value)) req.expect.bodyRefuse.push("a read-only field");
      return `read-only field ${key}`;
    },
    hasJsonObjectBody,
    2,
  ],
  [
    "huge string",
    (req, rng, w) => {
      const candidates = bodySlots(req, w).filter((s) => typeof getAt(readBody(req), s.path) === "string");
      const slot = candidates.length ? rng.pick(candidates) : bodySlots(req, w)[0];
      if (!slot) return undefined;
      const size = rng.pick([100_000, 100_000, 400_000, w.limits.bodyBytes + 1000]);
      const str = rng.pick(["x", "é", "😀", "\\u0000"]).repeat(Math.ceil(size / 4));
      putRaw(req, slot, `"${str}"`, `a string of ${size} characters`);
      const max = slotSchema(slot).maxLength;
      if (req.body!.length > bodyLimitsOf(req.op, w.limits).bodyBytes) {
        req.expect.bodyRefuse.push("the body is over the size limit");
        req.expect.overLimit = true;
      } else if (typeof max === "number" && max < str.length) req.expect.bodyRefuse.push("a string over its maxLength");
      else if (!fits(str, slotSchema(slot), (s) => w.spec.deref(s))) req.expect.bodyRefuse.push("a string that does not fit");
      return `huge string (${size}) at ${where(slot)}`;
    },
    hasBody,
    2,
  ],
  [
    "deeply nested value",
    (req, rng, w) => {
      const all = bodySlots(req, w);
      const inner = all.filter((x) => x.path.length > 0);
      if (!all.length) return undefined;
      const slot = rng.pick(inner.length ? inner : all);
      const depth = rng.pick([50, 200, 1000, 5000]);
      putRaw(req, slot, nested(depth, rng), `a value nested ${depth} deep`);
      req.expect.bodyRefuse.push(`nesting ${depth} deep (limit ${w.limits.maxDepth})`);
      req.expect.overLimit = true;
      return `nested ${depth} deep at ${where(slot)}`;
    },
    hasBody,
    2,
  ],
  [
    "wide array",
    (req, rng, w) => {
      const all = bodySlots(req, w);
      const inner = all.filter((x) => x.path.length > 0);
      if (!all.length) return undefined;
      const slot = rng.pick(inner.length ? inner : all);
      const n = rng.pick([1_000, 20_000, 60_000]);
      const item = rng.pick(["1", '"x"', "{}", "null"]);
      putRaw(req, slot, `[${Array(n).fill(item).join(",")}]`, `an array of ${n} items`);
      const asValue = Array(n).fill(JSON.parse(item));
      const { maxValues } = bodyLimitsOf(req.op, w.limits);
      if (n + 1 > maxValues) {
        req.expect.bodyRefuse.push(`${n} values (limit ${maxValues})`);
        req.expect.overLimit = true;
      } else if (!fits(asValue, slotSchema(slot), (s) => w.spec.deref(s))) req.expect.bodyRefuse.push("an array that does not fit");
      return `array of ${n} at ${where(slot)}`;
    },
    hasBody,
    2,
  ],
  [
    "wide object",
    (req, rng, w) => {
      const all = bodySlots(req, w);
      const inner = all.filter((x) => x.path.length > 0);
      if (!all.length) return undefined;
      const slot = rng.pick(inner.length ? inner : all);
      const n = rng.pick([500, 5_000, 20_000]);
      const parts: string[] = [];
      for (let i = 0; i < n; i++) parts.push(`"k${i}":${i}`);
      putRaw(req, slot, `{${parts.join(",")}}`, `an object of ${n} keys`);
      const asValue = Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
      if (n > w.limits.maxObjectKeys) {
        req.expect.bodyRefuse.push(`${n} keys (limit ${w.limits.maxObjectKeys})`);
        req.expect.overLimit = true;
      } else if (!fits(asValue, slotSchema(slot), (s) => w.spec.deref(s))) req.expect.bodyRefuse.push("an object that does not fit");
      return `object of ${n} keys at ${where(slot)}`;
    },
    hasBody,
    2,
  ],
  [
    "odd JSON number",
    (req, rng, w) => {
      const candidates = bodySlots(req, w).filter((s) => typeof getAt(readBody(req), s.path) === "number");
      if (!candidates.length) return undefined;
      const slot = rng.pick(candidates);
      const raw = rng.pick(["1e400", "-1e400", "1E2", "-0", "1.0", "0.1e1", "123456789012345678901234567890", "1e-400", "4.9e-324"]);
      putRaw(req, slot, raw, raw);
      const parsed = JSON.parse(raw);
      if (!Number.isFinite(parsed) || !fits(parsed, slotSchema(slot), (s) => w.spec.deref(s))) req.expect.bodyRefuse.push(`${raw} does not fit`);
      return `number ${raw} at ${where(slot)}`;
    },
    hasBody,
    2,
  ],
  [
    "malformed JSON",
    (req, rng) => {
      const f = rng.pick(MALFORMED);
      req.body = f(req.body ?? "{}");
      let ok = true;
      try {
        JSON.parse(req.body);
      } catch {
        ok = false;
      }
      req.expect.bodyRefuse = [];
      if (!ok && req.op.body) req.expect.bodyRefuse.push("malformed JSON");
      return `malformed JSON ${JSON.stringify(req.body.slice(0, 40))}`;
    },
    (req) => !req.expect.mediaType,
    3,
  ],
  [
    "wrong content type",
    (req, rng) => {
      const ct = rng.pick([...CONTENT_TYPES, "(none)"]);
      if (ct === "(none)") delete req.headers["content-type"];
      else req.headers["content-type"] = ct;
      req.body ??= "{}";
      // an upload route takes multipart whatever the body holds (a malformed form is its own 422)
      if (req.op.body && !(ct.startsWith("multipart/form-data") && req.op.body.contentType.startsWith("multipart/form-data"))) req.expect.mediaType = ct;
      return `content type ${ct}`;
    },
    (req) => req.method !== "GET",
    3,
  ],
  [
    "form body",
    (req, rng) => {
      const value = bodyValue(req) as Record<string, unknown>;
      const fields = Object.entries(value).filter(([, v]) => v !== null && typeof v !== "object");
      const kind = rng.pick(["multipart", "urlencoded"]);
      if (kind === "multipart") {
        const boundary = `fuzz${rng.int(1, 1e9)}`;
        req.body = `${fields.map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${String(v)}\r\n`).join("")}--${boundary}--\r\n`;
        req.headers["content-type"] = `multipart/form-data; boundary=${boundary}`;
      } else {
        req.body = fields.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v).toWellFormed())}`).join("&");
        req.headers["content-type"] = "application/x-www-form-urlencoded";
      }
      req.expect.bodyRefuse = [];
      // an upload route takes exactly this media type: what it answers is its own business (a file is missing, a 404...)
      const upload = kind === "multipart" && req.op.body?.contentType.startsWith("multipart/form-data");
      req.expect.mediaType = upload ? undefined : req.headers["content-type"];
      return `form body (${kind}, ${fields.length} fields)`;
    },
    hasJsonObjectBody,
    2,
  ],
  [
    "empty body",
    (req, rng, w) => {
      const kind = rng.pick(["no body", "empty string", "whitespace", "null", "[]", '""']);
      if (kind === "no body") {
        req.body = undefined;
        delete req.headers["content-type"];
      } else req.body = kind === "empty string" ? "" : kind === "whitespace" ? "  \n" : kind;
      const value = kind === "null" ? null : kind === "[]" ? [] : kind === '""' ? "" : undefined;
      const s = w.spec.deref(req.op.body!.schema);
      req.expect.bodyRefuse = [];
      if (value === undefined ? req.op.body!.required : !fits(value, s, (x) => w.spec.deref(x))) req.expect.bodyRefuse.push(`body: ${kind}`);
      return `body: ${kind}`;
    },
    (req) => !!req.op.body,
    2,
  ],
  [
    "idempotency key",
    (req, rng) => {
      req.headers["idempotency-key"] = rng.pick([
        `fuzz-${rng.next32()}`,
        `fuzz-${rng.next32()}`,
        `fuzz-${rng.int(1, 3)}`,
        "x".repeat(300),
        "",
        " ",
        "\u00ff\u00fe",
      ]);
      return `idempotency-key ${JSON.stringify(req.headers["idempotency-key"].slice(0, 20))}`;
    },
    (req) => req.method === "POST",
    1,
  ],
  [
    "idempotent replay",
    (req, rng, w) => {
      const first = rng.pick(w.idempotent.get(req.op.key)!);
      const kind = req.op.body ? rng.pick(["same request", "same request", "another body"]) : "same request";
      req.url = first.url;
      req.headers = { ...first.headers };
      req.scope = first.scope;
      req.params = {};
      authenticate(req, w, first.credential);
      req.body = first.body;
      req.expect = { refuse: [], bodyRefuse: [] };
      if (kind === "same request") {
        req.expect.replay = { status: first.status, text: first.text, index: first.index };
        return `idempotent replay of #${first.index}`;
      }
      const value = bodyValue(req);
      req.body = JSON.stringify(value && typeof value === "object" && !Array.isArray(value) ? { ...value, fuzz_changed: rng.int(1, 1e6) } : [value]);
      req.expect.refuse.push("the same idempotency key with another body");
      req.expect.org = { allowed: [409], why: "the same Idempotency-Key with another body is 409 idempotency_conflict" };
      return `idempotency key of #${first.index} with another body`;
    },
    (req, w) => req.mutations.length === 0 && !!w.idempotent.get(req.op.key)?.length,
    6,
  ],
  [
    "stale base_version",
    (req, rng, w) => {
      const last = req.op.pathParams[req.op.pathParams.length - 1];
      const known = last ? w.pools.versionOf(req.scope, req.op, req.params[last]) : undefined;
      if (known === undefined) return undefined;
      const stale = rng.pick([known + 1, known + 50, known > 1 ? known - 1 : known + 2]);
      const value = bodyValue(req);
      if (value && typeof value === "object" && "base_version" in (value as object)) {
        (value as Record<string, unknown>).base_version = stale;
        req.body = JSON.stringify(value);
        req.touched.add("base_version");
      } else if (freeQuery(req).some((p) => p.name === "base_version")) {
        setParam(req, "base_version", String(stale));
      } else return undefined;
      req.expect.refuse.push(`base_version ${stale} is not the current version ${known}`);
      return `stale base_version ${stale} (current ${known})`;
    },
    (req, w) => {
      const last = req.op.pathParams[req.op.pathParams.length - 1];
      if (!last || w.pools.versionOf(req.scope, req.op, req.params[last]) === undefined) return false;
      const value = readBody(req);
      return (
        (!!value && typeof value === "object" && "base_version" in (value as object) && !req.touched.has("base_version")) ||
        (getQuery(req).some(([k]) => k === "base_version") && !req.touched.has("?base_version"))
      );
    },
    3,
  ],
  [
    "odd integer in query",
    (req, rng) => {
      const ints = freeQuery(req).filter((p) => typeOf(p.schema) === "integer");
      const p = rng.pick(ints);
      const v = rng.pick(ODD_INTEGERS);
      setParam(req, p.name, v);
      req.expect.refuse.push(`query ${p.name}=${JSON.stringify(v)} is not a decimal integer`);
      return `query ${p.name}=${JSON.stringify(v)}`;
    },
    (req) => freeQuery(req).some((p) => typeOf(p.schema) === "integer"),
    3,
  ],
  [
    "wrong type in query",
    (req, rng, w) => {
      const typed = freeQuery(req).filter(
        (p) => ["integer", "number", "boolean"].includes(typeOf(p.schema)) || enumOf(p.schema, w) || w.spec.deref(p.schema).pattern,
      );
      const p = rng.pick(typed);
      const v = rng.pick(["abc", "true!", "[]", "null", "%", "1;DROP", "💥"]);
      setParam(req, p.name, v);
      req.expect.refuse.push(`query ${p.name}=${v} does not fit`);
      return `query ${p.name}=${JSON.stringify(v)}`;
    },
    (req, w) =>
      freeQuery(req).some((p) => ["integer", "number", "boolean"].includes(typeOf(p.schema)) || !!enumOf(p.schema, w) || !!w.spec.deref(p.schema).pattern),
    2,
  ],
  [
    "out of range in query",
    (req, rng, w) => {
      const ranged = freeQuery(req).filter((p) => {
        const s = w.spec.deref(p.schema);
        return typeof s.minimum === "number" || typeof s.maximum === "number" || typeof s.maxLength === "number";
      });
      const p = rng.pick(ranged);
      const s = w.spec.deref(p.schema);
      const options: string[] = [];
      if (typeof s.minimum === "number") options.push(String(s.minimum - 1));
      if (typeof s.maximum === "number" && s.maximum < 1e15) options.push(String(s.maximum + 1), String(s.maximum * 1000));
      if (typeof s.maxLength === "number") options.push("x".repeat(s.maxLength + 1));
      const v = rng.pick(options);
      setParam(req, p.name, v);
      req.expect.refuse.push(`query ${p.name} out of range`);
      return `query ${p.name}=${v.length > 20 ? `${v.slice(0, 20)}…` : v}`;
    },
    (req, w) =>
      freeQuery(req).some((p) => {
        const s = w.spec.deref(p.schema);
        return typeof s.minimum === "number" || typeof s.maximum === "number" || typeof s.maxLength === "number";
      }),
    2,
  ],
  [
    "missing required query",
    (req, rng) => {
      const p = rng.pick(freeQuery(req).filter((x) => x.required));
      setParam(req, p.name, undefined);
      req.expect.refuse.push(`required query ${p.name} missing`);
      return `no query ${p.name}`;
    },
    (req) => freeQuery(req).some((p) => p.required),
    2,
  ],
  [
    "query noise",
    (req, rng, w) => {
      const q = getQuery(req);
      const kind = rng.pick(["repeat", "unknown", "many", "huge", "empty"]);
      const free = freeQuery(req).map((p) => p.name);
      if (kind === "repeat" && q.length) q.push(rng.pick(q));
      else if (kind === "unknown") q.push([rng.pick(["fuzz", "__proto__", "page[size]", "sort_by[]", "$where"]), "1"]);
      else if (kind === "many") for (let i = 0; i < w.limits.queryMaxParams * 3; i++) q.push([`p${i}`, String(i)]);
      else if (kind === "huge") q.push([free.length ? rng.pick(free) : "q", "x".repeat(w.limits.queryMaxBytes * 2)]);
      else q.push(["", ""]);
      setQuery(req, q);
      // (a later mutation replacing one of these would undo the noise)
      for (const [k] of q) req.touched.add(`?${k}`);
      const length = req.url.length - req.url.indexOf("?") - 1;
      if (kind === "many" || length > w.limits.queryMaxBytes) {
        req.expect.refuse.push(`a query string over the limits (${q.length} parameters, ${length} bytes)`);
        req.expect.overLimit = true;
      }
      return `query ${kind}`;
    },
    () => true,
    2,
  ],
  [
    "id of another org",
    (req, rng, w) => {
      const foreign = foreignIdsFor(req, w);
      if (!foreign.length) return undefined;
      const ids = req.op.pathParams.filter((p) => p !== tenantParam(req.op) && isIdName(p));
      // only fields that name a kind of record the API serves (a reference it must check)
      const bodySlotsWithIds = bodySlots(req, w).filter(
        (s) => isIdName(s.name) && isReference(s.name, w) && !documentedUnchecked(s) && typeof getAt(readBody(req), s.path) === "string",
      );
      const id = rng.pick(foreign);
      if (ids.length && (!bodySlotsWithIds.length || rng.chance(0.6))) {
        const p = rng.pick(ids);
        req.params[p] = id;
        setQuery(req, getQuery(req));
        req.foreignIds.push(id);
        return `path ${p} = an id of another org`;
      }
      if (!bodySlotsWithIds.length) return undefined;
      const slot = rng.pick(bodySlotsWithIds);
      touch(req, slot);
      const value = setAt(bodyValue(req), slot.path, id);
      req.body = JSON.stringify(value);
      req.foreignIds.push(id);
      return `${where(slot)} = an id of another org`;
    },
    (req, w) => req.op.tenant && foreignIdsFor(req, w).length > 0,
    4,
  ],
  [
    "odd path id",
    (req, rng) => {
      const ids = req.op.pathParams.filter((p) => p !== tenantParam(req.op));
      const p = rng.pick(ids);
      const kind = rng.pick(["random uuid", "random uuid", "not a uuid", "upper case", "long", "dot dot", "sql", "nul", "space"]);
      const current = req.params[p] ?? "";
      const v =
        kind === "random uuid"
          ? rng.uuid()
          : kind === "not a uuid"
            ? "not-a-uuid"
            : kind === "upper case"
              ? current.toUpperCase()
              : kind === "long"
                ? "a".repeat(5000)
                : kind === "dot dot"
                  ? "..."
                  : kind === "sql"
                    ? "1' OR '1'='1"
                    : kind === "nul"
                      ? "\u0000"
                      : " ";
      req.params[p] = v;
      setQuery(req, getQuery(req));
      if (kind !== "upper case" && isIdName(p)) req.expect.refuse.push(`path ${p} is ${kind}`);
      return `path ${p}: ${kind}`;
    },
    (req) => req.op.pathParams.some((p) => p !== tenantParam(req.op)),
    3,
  ],
  [
    "unknown org",
    (req, rng, w) => {
      const t = tenantParam(req.op)!;
      const kind = rng.pick(["random uuid", "not a uuid", "archived-looking"]);
      req.params[t] = kind === "not a uuid" ? "not-an-org" : rng.uuid();
      setQuery(req, getQuery(req));
      req.expect.refuse.push("an org that does not exist");
      // the contract: 404 for every {P} path of an org the caller cannot see (401 first without a valid credential)
      req.expect.org = { allowed: [404, 413], why: "an unknown org is 404" };
      req.scope = "nowhere";
      void w;
      return `org: ${kind}`;
    },
    (req) => req.op.tenant,
    1,
  ],
  [
    "member of another org",
    (req, _rng, w) => {
      const other = w.orgs.find((o) => o.key !== w.orgs[0]!.key)!;
      req.params[tenantParam(req.op)!] = other.id;
      req.scope = other.key;
      setQuery(req, getQuery(req));
      authenticate(req, w, "member");
      req.expect.refuse.push("the caller is not a member of the org");
      req.expect.org = { allowed: [404, 413], why: "a caller who is not a member of the org gets 404 for every {P} path" };
      return "member of another org";
    },
    (req, w) => req.op.tenant && !req.op.public && !req.expect.auth && req.scope === w.orgs[0]!.key && !!w.principals.member,
    2,
  ],
  [
    "bad credential",
    (req, rng, w) => {
      const c = rng.pick(w.bad);
      delete req.headers.authorization;
      Object.assign(req.headers, c.headers);
      if (c.query.length) setQuery(req, [...getQuery(req), ...c.query]);
      req.credential = c.label;
      req.expect.refuse.push(`credential: ${c.label}`);
      req.expect.auth = { allowed: [401, 413], why: "a missing, malformed, expired or forged credential is 401" };
      return `credential: ${c.label}`;
    },
    isProtected,
    5,
  ],
];

/** Strings at the edges: odd dates and times (leap days, DST gaps, far years), blanks, controls, bidi, lone surrogates. */
const EDGE_STRINGS = [
  "0001-01-01",
  "9999-12-31",
  "1900-02-28",
  "2028-02-29",
  "2030-03-10T02:30:00",
  "2030-11-03T01:30:00",
  "2030-12-31T23:59:59",
  "2030-12-31T23:59:59.999999999Z",
  "0000-01-01T00:00:00Z",
  "2030-06-01T00:00:00+14:00",
  "2030-06-01T00:00:00-12:00",
  "00:00",
  "23:59",
  "24:00",
  "",
  " ",
  "\u0000",
  "\u202e\u0645",
  "ﬀ",
  "İ",
  "a\ud83d",
  "%",
  "_",
  "\\",
  "*",
  "null",
  "undefined",
  "0",
  "-1",
  "NaN",
];

/** Values at the edges of what a schema allows (the caller keeps those that fit): bounds, lengths, odd dates and characters. */
function edgeValues(s0: Schema, w: World): unknown[] {
  const out: unknown[] = [null, true, false, 0, -1, 1, [], {}];
  for (const s of (w.spec.deref(s0).anyOf ?? w.spec.deref(s0).oneOf ?? [s0]).map((b: Schema) => w.spec.deref(b))) {
    if (typeof s.minimum === "number") out.push(s.minimum, s.minimum + (s.multipleOf ?? 0.01));
    if (typeof s.maximum === "number") out.push(s.maximum, s.maximum - (s.multipleOf ?? 0.01));
    out.push(2 ** 31, 2 ** 31 - 1, -(2 ** 31), Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 0.1 + 0.2, 1e-7, 999999.995, 1e15);
    if (typeof s.maxLength === "number") out.push("x".repeat(s.maxLength), "é".repeat(s.maxLength), "😀".repeat(Math.floor(s.maxLength / 2)));
    if (typeof s.minLength === "number") out.push("x".repeat(s.minLength));
    out.push(...EDGE_STRINGS);
    if (Array.isArray(s.enum)) out.push(...s.enum);
  }
  return out;
}

/** The value at `path`. */
function getAt(root: unknown, path: (string | number)[]): unknown {
  let node: any = root;
  for (const k of path) node = node?.[k];
  return node;
}

/** A query parameter's type (the non-null branch of a union). */
function typeOf(s: Schema): string {
  const t = s.type ?? s.anyOf?.map((b: Schema) => b.type).find((x: unknown) => x && x !== "null");
  return Array.isArray(t) ? (t.find((x) => x !== "null") ?? "") : (t ?? "");
}

/** A parameter's enum, if it has one (directly or in a branch). */
function enumOf(s: Schema, w: World): unknown[] | undefined {
  const d = w.spec.deref(s);
  return d.enum ?? d.anyOf?.map((b: Schema) => w.spec.deref(b)).find((b: Schema) => b.enum)?.enum;
}

const collections = new WeakMap<Spec, Set<string>>();
/** Whether a field called `name` refers to a collection of the document (`patient_uuid`: yes; `payor_id`: no). */
function isReference(name: string, w: World): boolean {
  let set = collections.get(w.spec);
  if (!set) collections.set(w.spec, (set = new Set(w.spec.operations.map((o) => stem(o.collection)))));
  // patient_uuid, appointment_type_a_uuid, primary_provider_uuid: yes; provider_type_uuid: no
  const words = stem(name)
    .replace(/_[a-z0-9]$/, "")
    .split("_");
  return words.some((_, i) => set.has(words.slice(i).join("_")));
}

/** A field the document says is stored without a lookup ("stored unchecked", "not checked against ..."): any id goes. */
function documentedUnchecked(slot: Slot): boolean {
  const text = `${slotSchema(slot).description ?? ""} ${slot.schema.description ?? ""}`;
  return /\bunchecked\b|\bnot checked\b/i.test(text);
}

/** Ids created in another fixture org than the request's (they exist only there). */
function foreignIdsFor(req: FuzzRequest, w: World): string[] {
  const out: string[] = [];
  for (const o of w.orgs) if (o.key !== req.scope) out.push(...w.pools.createdIn(o.key));
  return out;
}
