// The operations of the service's own OpenAPI document, in the shape the
// fuzzer needs. Everything the fuzzer knows about a route comes from here.

export type Schema = { [k: string]: any };

export type Param = { name: string; in: "path" | "query" | "header"; required: boolean; schema: Schema };

export type Operation = {
  /** "POST /api/v1/{org_id}/patients" */
  key: string;
  method: string;
  path: string;
  /** The path split on "/", without the leading empty segment. */
  segments: string[];
  pathParams: string[];
  query: Param[];
  headers: Param[];
  body?: { schema: Schema; required: boolean; contentType: string };
  /** Fields the body must not carry (the document's x-read-only-fields). */
  readOnly: string[];
  /** No credential needed (`security: []`). */
  public: boolean;
  /** Under an org: the path's first segment after the API base is a parameter ({P}). */
  tenant: boolean;
  /** Documents a 201: a create. */
  creates: boolean;
  /** The last static segment: the collection the operation's records belong to. */
  collection: string;
  /** Answers text/event-stream (never read to the end). */
  streaming: boolean;
  /** Documented response statuses. */
  statuses: number[];
  /** The documented 2xx JSON schema, if any. */
  success?: Schema;
};

type Doc = {
  paths: Record<string, Record<string, any>>;
  components?: { schemas?: Record<string, Schema> };
  security?: unknown[];
};

const METHODS = new Set(["get", "post", "put", "patch", "delete"]);

export class Spec {
  readonly operations: Operation[];

  constructor(readonly doc: Doc) {
    this.operations = [];
    for (const [path, item] of Object.entries(doc.paths ?? {})) {
      const shared: any[] = item.parameters ?? [];
      for (const [m, raw] of Object.entries(item)) {
        if (!METHODS.has(m)) continue;
        this.operations.push(this.operation(path, m.toUpperCase(), raw, shared));
      }
    }
  }

  /** Follows local `$ref`s (`#/components/schemas/X`); anything else is returned as is. */
  deref(schema: Schema | undefined): Schema {
    let s = schema ?? {};
    for (let i = 0; i < 32 && typeof s.$ref === "string"; i++) {
      const target = s.$ref
        .replace(/^#\//, "")
        .split("/")
        .reduce((node: any, part: string) => node?.[part.replace(/~1/g, "/").replace(/~0/g, "~")], this.doc as any);
      s = target ?? {};
    }
    return s;
  }

  private operation(path: string, method: string, raw: any, shared: any[]): Operation {
    const params: Param[] = [...shared, ...(raw.parameters ?? [])].map((p: any) => {
      const q = this.deref(p);
      return { name: q.name, in: q.in, required: !!q.required, schema: this.deref(q.schema) };
    });
    const segments = path.replace(/^\//, "").split("/");
    const pathParams = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    const rb = raw.requestBody ? this.deref(raw.requestBody) : undefined;
    const contentType = rb ? (Object.keys(rb.content ?? {}).find((c) => c.includes("json")) ?? Object.keys(rb.content ?? {})[0]) : undefined;
    const bodySchema = rb && contentType ? this.deref(rb.content[contentType]?.schema) : undefined;
    const statuses = Object.keys(raw.responses ?? {})
      .map(Number)
      .filter((n) => Number.isInteger(n));
    const okStatus = statuses.find((s) => s >= 200 && s < 300);
    const okContent = okStatus !== undefined ? raw.responses[String(okStatus)]?.content : undefined;
    const security = raw.security ?? this.doc.security ?? [];
    const statics = segments.filter((s) => s && !s.startsWith("{"));
    return {
      key: `${method} ${path}`,
      method,
      path,
      segments,
      pathParams,
      query: params.filter((p) => p.in === "query"),
      headers: params.filter((p) => p.in === "header"),
      body: bodySchema && contentType ? { schema: bodySchema, required: !!rb?.required, contentType } : undefined,
      readOnly: (bodySchema?.["x-read-only-fields"] as string[] | undefined) ?? [],
      public: Array.isArray(security) && security.length === 0,
      tenant: /^\/api\/v\d+\/\{[^}]+\}\//.test(path),
      creates: statuses.includes(201),
      collection: statics[statics.length - 1] ?? "",
      streaming: !!okContent?.["text/event-stream"],
      statuses,
      success: okContent?.["application/json"]?.schema ? this.deref(okContent["application/json"].schema) : undefined,
    };
  }
}

/** The tenant parameter of a {P} path (the org id), or undefined. */
export function tenantParam(op: Operation): string | undefined {
  return op.tenant ? /^\/api\/v\d+\/\{([^}]+)\}/.exec(op.path)![1] : undefined;
}

/** The static segment right before `{param}` in the path (the collection its ids belong to). */
export function collectionBefore(op: Operation, param: string): string | undefined {
  const i = op.segments.indexOf(`{${param}}`);
  for (let j = i - 1; j >= 0; j--) if (!op.segments[j]!.startsWith("{") && op.segments[j]) return op.segments[j];
  return undefined;
}
