import { zodToOpenApiSchema } from "./json-schema";
import { nameComponents } from "./openapi-components";
import { ErrorBody, ValidationErrorBody } from "./openapi";
import INTRODUCTION from "./openapi-introduction.md" with { type: "text" };

// The last pass over the generated OpenAPI document (docs/system/api-reference-document.md):
// the introduction, server, licence and contact, shared error components,
// response descriptions, the Idempotency-Key header, `security: []` on public
// routes, the mechanical parts of the descriptions (paging, base_version),
// request examples in the media type and readable operationIds. Runs once per
// process, on the first GET /openapi.json.

type Json = Record<string, any>;
type RouteLike = { method: string; path: string; hooks?: unknown };

const METHODS = new Set(["get", "put", "post", "patch", "delete"]);

export const ERROR_REF = "#/components/schemas/Error";
export const VALIDATION_ERROR_REF = "#/components/schemas/ValidationError";

/** The generator's placeholder ("Response for status 404") gives way to what the status means here (CONTRACT.md, "Errors"). */
const STATUS_TEXT: Record<string, string> = {
  "200": "OK",
  "201": "Created",
  "202": "Accepted",
  "204": "No content",
  "400": "Bad request",
  "401": "Missing, malformed, expired or revoked credential (WWW-Authenticate: Bearer)",
  "403": "Authenticated, but lacking the permission (or its reach)",
  "404": "Not found; also any path under an org the caller is not a member of",
  "405": "Method not allowed: the records are append-only",
  "409": "Conflict: `code` says which (`version_conflict`, `duplicate`, `idempotency_conflict` or one the description names)",
  "413": "Request body over the size limit",
  "415": "Unsupported Content-Type",
  "422": "Validation failed: `detail` lists each problem; `code` names a domain rule",
  "429": "Too many requests: retry after Retry-After seconds",
  "501": "Not available until Phase 2: only the smart-list actions spec.md names answer it",
  "503": "Service unavailable",
};

const IDEMPOTENCY_KEY = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description:
    "Any string of at most 255 characters. The same key with the same body within 24 hours replays the first answer (status and body, `Idempotent-Replayed: true`); " +
    "with another body, or while the first request still runs, it is 409 `idempotency_conflict`. Keys are per caller, org and path; a 5xx answer releases the key.",
  schema: { type: "string", maxLength: 255 },
};

/** Finishes `doc` in place; `routes` are the app's routes (their hooks say which guard each declares). */
export function finishOpenApi(doc: Json, routes: RouteLike[]): void {
  describeDocument(doc);
  const byOperation = new Map<string, RouteLike>();
  for (const r of routes) byOperation.set(`${r.method.toLowerCase()} ${openApiPath(r.path)}`, r);

  doc.components ??= {};
  doc.components.schemas = { ...doc.components.schemas, Error: zodToOpenApiSchema(ErrorBody), ValidationError: zodToOpenApiSchema(ValidationErrorBody) };
  doc.components.parameters = { ...doc.components.parameters, IdempotencyKey: IDEMPOTENCY_KEY };
  const errorRefs = new Map([
    [canonical(doc.components.schemas.Error), ERROR_REF],
    [canonical(doc.components.schemas.ValidationError), VALIDATION_ERROR_REF],
  ]);

  const ids = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths ?? {}) as [string, Json][]) {
    for (const [method, op] of Object.entries(item) as [string, Json][]) {
      if (!METHODS.has(method)) continue;
      const route = byOperation.get(`${method} ${path}`);
      const isPublic = route ? isPublicRoute(route.hooks) : Array.isArray(op.security) && op.security.length === 0;
      if (isPublic) op.security = [];
      tidyResponses(op, errorRefs);
      if (method === "post" && !isPublic) acceptIdempotencyKey(op);
      if (path.startsWith(ORG_PATH_PREFIX)) answersUnavailable(op, method !== "get");
      liftExamples(op);
      const description = describe(op);
      if (description) op.description = description;
      const explicit = (route?.hooks as { detail?: { operationId?: string } } | undefined)?.detail?.operationId;
      op.operationId = unique(explicit ?? operationIdOf(method, path, op), path, ids);
    }
  }
  nameComponents(doc, zodToOpenApiSchema); // declared schemas (the dental vocabulary's enums) as components, each use a $ref
}

/**
 * The document's own parts. The introduction is what the reference at /docs
 * opens on (openapi-introduction.md, checked by tests/platform/openapi-introduction.test.ts).
 * The server is relative: the document is served by the API it describes, so
 * its paths are on the origin that served it, whatever name that origin has.
 */
function describeDocument(doc: Json) {
  doc.info = {
    ...doc.info,
    description: INTRODUCTION.trim(),
    contact: { name: "Cusp API" },
    // the project grants no licence (package.json is private): the document says so
    license: { name: "Proprietary: all rights reserved", identifier: "LicenseRef-Proprietary" },
  };
  doc.servers = [{ url: "/", description: "The origin that serves this document" }];
}

/** `/api/v1/:org_id/x` -> `/api/v1/{org_id}/x` */
export function openApiPath(path: string): string {
  return path.replace(/:([^/]+)/g, "{$1}");
}

/** A route declared `public: true` (guard.ts): its guard transform is the `publicRoute` function. */
export function isPublicRoute(hooks: unknown): boolean {
  const transform = (hooks as { transform?: unknown } | undefined)?.transform;
  const list = Array.isArray(transform) ? transform : transform ? [transform] : [];
  return list.some((h: { fn?: unknown }) => ((h?.fn ?? h) as { name?: string } | undefined)?.name === "publicRoute");
}

/** Error bodies point at the shared components; placeholder descriptions say what the status means. */
function tidyResponses(op: Json, errorRefs: Map<string, string>) {
  for (const [status, response] of Object.entries((op.responses ?? {}) as Record<string, Json>)) {
    if (typeof response.description !== "string" || /^Response for status \d+$/.test(response.description)) {
      response.description = STATUS_TEXT[status] ?? `Status ${status}`;
    }
    if (Number(status) < 400) continue;
    const media = response.content?.["application/json"];
    const ref = media?.schema ? errorRefs.get(canonical(media.schema)) : undefined;
    if (ref) media.schema = { $ref: ref };
  }
}

/** Every authenticated POST honours Idempotency-Key (guard.ts), so each may answer 409 idempotency_conflict. */
function acceptIdempotencyKey(op: Json) {
  op.parameters = [...(op.parameters ?? []), { $ref: "#/components/parameters/IdempotencyKey" }];
  op.responses ??= {};
  op.responses["409"] ??= { description: STATUS_TEXT["409"], content: { "application/json": { schema: { $ref: ERROR_REF } } } };
}

const ORG_PATH_PREFIX = "/api/v1/{org_id}/";

/**
 * Every org route may answer 503 with Retry-After: when the org's database
 * cannot be reached (platform/db/org-databases.ts), and for a write, when it
 * met the org's move to another shard and the move took longer than the write
 * may wait (platform/tenancy/orgs.ts, docs/admin/admin.md).
 */
function answersUnavailable(op: Json, write: boolean) {
  op.responses ??= {};
  op.responses["503"] ??= {
    description: write
      ? "The org's database is unavailable, or this write met the org's move to another shard and waited 15 s without it finishing: nothing was written; try again after Retry-After"
      : "The org's database is unavailable; try again shortly",
    content: { "application/json": { schema: { $ref: ERROR_REF } } },
  };
}

/** Examples declared on a body schema (zod `.meta({ examples })`) also go to the media type, where tools show them. */
function liftExamples(op: Json) {
  const media = op.requestBody?.content?.["application/json"];
  const examples = media?.schema?.examples;
  if (Array.isArray(examples) && examples.length && media.example === undefined) media.example = examples[0];
}

/**
 * The route's own description (else a note kept outside its file), then the
 * rules every operation of a kind shares: paging and optimistic versions.
 */
function describe(op: Json): string | undefined {
  const parts: string[] = [];
  const own = (op.description as string | undefined)?.trim();
  if (own) parts.push(own);
  const text = parts.join(" ");
  const paging = op.parameters ? pagingSentence(op, text) : undefined;
  if (paging) parts.push(paging);
  const version = versionSentence(op, text);
  if (version) parts.push(version);
  if (!parts.length) return undefined;
  return parts.map((p, i) => (i < parts.length - 1 && !/[.!?]$/.test(p) ? `${p}.` : p)).join(" ");
}

function queryParam(op: Json, name: string): Json | undefined {
  return (op.parameters as Json[] | undefined)?.find((p) => p.in === "query" && p.name === name);
}

function pagingSentence(op: Json, text: string): string | undefined {
  const page = queryParam(op, "page");
  const size = queryParam(op, "page_size");
  if (page && size && !/page_size/.test(text)) {
    const { default: d, maximum: max } = size.schema ?? {};
    return `Paged: \`page\` (1-based, default 1) and \`page_size\` (default ${d}, at most ${max}); out of range is 422. The answer is \`{items, page, page_size, total}\`.`;
  }
  const limit = queryParam(op, "limit");
  if (limit && queryParam(op, "offset") && !/offset/.test(text)) {
    const { default: d, maximum: max } = limit.schema ?? {};
    return `Paged by \`limit\` (default ${d}, at most ${max}) and \`offset\` (default 0); out of range is 422. The answer is \`{items, total}\`.`;
  }
  return undefined;
}

function versionSentence(op: Json, text: string): string | undefined {
  const body = op.requestBody?.content?.["application/json"]?.schema;
  const inBody = !!body?.properties?.base_version;
  if (!inBody && !queryParam(op, "base_version")) return undefined;
  if (/version_conflict|stale/.test(text)) return undefined;
  const where = inBody ? "`base_version`" : "`?base_version=`";
  return `${where} is the version you read: a stale one is 409 \`version_conflict\`.`;
}

// ---- operationIds ----

/**
 * Non-verb action segments: the verb to use and the noun that follows the
 * resource (`POST /appointments/{id}/status` -> setAppointmentStatus).
 */
const ACTIONS: Record<string, [verb: string, suffix: string]> = {
  status: ["set", "status"],
  "transition-status": ["transition", "status"],
  confirmation: ["record", "confirmation"],
  members: ["add", "members"],
  "legal-hold": ["place", "legal-hold"],
  "tooth-transition": ["transition", "tooth"],
  "from-preset": ["create", "from-preset"],
  import: ["import", ""],
  upsert: ["upsert", ""],
};

const SINGULAR: Record<string, string> = {
  statuses: "status",
  aliases: "alias",
  addendums: "addendum",
  access: "access",
  evidence: "evidence",
  teeth: "tooth",
};

function singular(segment: string): string {
  const words = segment.split("-");
  const w = words.pop()!;
  let s = SINGULAR[w];
  if (!s) {
    if (w.endsWith("ies")) s = `${w.slice(0, -3)}y`;
    else if (/(ss|x|ch|sh)es$/.test(w)) s = w.slice(0, -2);
    else if (w.endsWith("s") && !/(ss|us)$/.test(w)) s = w.slice(0, -1);
    else s = w;
  }
  return [...words, s].join("-");
}

const pascal = (words: string[]) =>
  words
    .flatMap((w) => w.split(/[-_]/))
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join("");

/**
 * A readable id from the method and path alone (stable while the path is):
 * the path's static segments without `/api/v1` and the org (`{P}`), each
 * segment naming an item singular, after a verb: list/get for reads (list
 * when paged or answering an array), create for a POST answering 201,
 * update (PATCH), set (PUT), delete; a POST to an action segment takes the
 * action as its verb (`POST {P}/patients/{id}/archive` -> archivePatient).
 */
export function operationIdOf(method: string, path: string, op: Json): string {
  let segs = path.split("/").filter(Boolean);
  if (segs[0] === "api") segs = segs.slice(1);
  if (/^v\d+$/.test(segs[0] ?? "")) {
    segs = segs.slice(1);
    if (segs[0]?.startsWith("{")) segs = segs.slice(1); // {P}: the org is the context, not a resource
  }
  const nouns: string[] = [];
  segs.forEach((s, i) => {
    if (!s.startsWith("{")) nouns.push(segs[i + 1]?.startsWith("{") ? singular(s) : s);
  });
  const last = segs[segs.length - 1] ?? "";
  const onItem = last.startsWith("{");
  const afterItem = segs[segs.length - 2]?.startsWith("{") ?? false;
  const statuses = Object.keys(op.responses ?? {});
  if (method === "get") return (onItem || !isList(op) ? "get" : "list") + pascal(nouns);
  if (method === "post" && !onItem) {
    const action = nouns.pop()!;
    const [verb, suffix] = ACTIONS[action] ?? (statuses.includes("201") ? ["create", ""] : [action, ""]);
    if (verb === "create") {
      const resource = suffix ? nouns : [...nouns, action];
      if (resource.length) resource.push(singular(resource.pop()!));
      return verb + pascal([...resource, suffix]);
    }
    return camel(verb) + pascal([...nouns, suffix]);
  }
  if (method === "put" && !onItem && !afterItem && ACTIONS[last]) {
    nouns.pop();
    const [verb, suffix] = ACTIONS[last]!;
    return verb + pascal([...nouns, suffix]);
  }
  const verb = { post: "post", put: "set", patch: "update", delete: "delete" }[method] ?? method;
  return verb + pascal(nouns);
}

const camel = (s: string) => {
  const p = pascal([s]);
  return p[0]!.toLowerCase() + p.slice(1);
};

function isList(op: Json): boolean {
  if (queryParam(op, "page") || queryParam(op, "limit")) return true;
  const schema = op.responses?.["200"]?.content?.["application/json"]?.schema;
  return schema?.type === "array" || schema?.properties?.items?.type === "array";
}

/** Ids must be unique: a clash (none today) takes the path's parameters, then a number. */
function unique(id: string, path: string, taken: Set<string>): string {
  let out = id;
  if (taken.has(out)) out += pascal([...path.matchAll(/\{([^}]+)\}/g)].map((m) => `by-${m[1]}`));
  for (let n = 2; taken.has(out); n++) out = `${id}${n}`;
  taken.add(out);
  return out;
}

/** JSON with sorted keys: two schemas are the same schema whatever their key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v) =>
    v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}
