import { Elysia } from "elysia";
import { z } from "zod";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { health } from "./health";
import { eventStream } from "./stream";
import { downloadSignedFile } from "./files";
import { docsAssetResponse, docsAssets, docsPageResponse, tidyOpenApi, VIEWER_CONFIG_PATH, VIEWER_SCRIPT_PATH, type RouteLike } from "./docs";
import { LOCAL_FILES_PATH } from "@/platform/storage/local";
import { errorSchemas } from "@/platform/http/openapi";

const Health = z.object({
  status: z.enum(["ok", "fail"]),
  failing: z.array(z.string()),
  checks: z.array(z.object({ name: z.string(), ok: z.boolean(), detail: z.string().optional() })),
  uptime_seconds: z.number(),
  replication: z
    .object({
      region: z.string(),
      primary_region: z.string(),
      role: z.enum(["primary", "edge"]).describe("edge: reads from replicas, sends writes to the primary region"),
      databases: z.int().describe("Replicated org databases open in this instance"),
      max_lag_ms: z
        .int()
        .nullable()
        .describe("At an edge: ms since the stalest open replica last pulled from its shard (null: one never has); 0 at the primary"),
      unpushed: z.int().describe("At the primary: commits not yet taken by their shards"),
      errors: z.int().describe("Open replicated databases whose last sync failed"),
    })
    .describe("Replicated (turso-sync) org databases in this instance (docs/operations/deploy.md, Edge regions)"),
  effects: z
    .object({
      events_pending: z.int().describe("Events of committed writes kept because the bus did not take them; published, in order, when it does"),
      events_dropped: z.int().describe("Events dropped since the process started: the bus was away for more than 10,000 of them"),
      jobs_pending: z
        .int()
        .describe("Jobs committed writes recorded that the queue has not taken yet, as far as this instance knows; handed over every second"),
      orgs_with_pending_jobs: z.int(),
      breakers: z
        .object({
          redis: z
            .enum(["closed", "open", "half_open"])
            .nullable()
            .describe("open: calls to Redis are refused at once for a second, then one probes; null without Redis"),
          queue: z.enum(["closed", "open", "half_open"]).nullable().describe("The same for the queue's PostgreSQL; null without a queue"),
        })
        .describe("Whether this instance is refusing calls to a shared service at once"),
    })
    .describe("What committed writes left to deliver because a shared service was away (docs/platform/reliability.md)"),
});

/** The probes take no query, but every request is held to the query limits (input-limits.ts). */
const QUERY_LIMITS = "A query string over QUERY_MAX_BYTES (default 8192) or QUERY_MAX_PARAMS (default 64) is 422, as on every path.";

export const systemRoutes = (rt: Runtime) =>
  new Elysia({ tags: ["System"] })
    .use(guard(rt))
    .get("/api/ping", () => ({ status: "ok" as const }), {
      public: true,
      response: { 200: z.object({ status: z.literal("ok") }), ...errorSchemas(422) },
      detail: {
        summary: "Liveness",
        description: `Answers \`{"status": "ok"}\` while the process serves requests, without touching a database; never rate limited, so a load balancer may poll it. ${QUERY_LIMITS}`,
        security: [],
      },
    })
    .get(
      "/api/health",
      async ({ set }) => {
        const result = await health(rt);
        if (result.status !== "ok") set.status = 503;
        return result;
      },
      {
        public: true,
        response: { 200: Health, 503: Health, ...errorSchemas(422) },
        detail: {
          summary: "Readiness: database, cache store, storage, schema_version",
          description: `Checks the control database, the cache store, document storage, the schema version (and the job queue where this process runs one), each within 2 s: 200 when all pass, else 503 with the same report naming the failing checks. Also reports this instance's replicated org databases. Never rate limited. ${QUERY_LIMITS}`,
          security: [],
        },
      },
    )
    .get("/api/v1/:org_id/events/stream", ({ ctx, query }) => eventStream(rt, ctx.org.id, query.practice_id ?? ""), {
      permission: { key: "events.stream", devStubUser: true },
      query: z.strictObject({ practice_id: z.string().max(64).optional().describe("Only this practice's (location's) events") }),
      response: { 200: z.string().meta({ contentMediaType: "text/event-stream" }), ...orgErrors() },
      detail: {
        summary: "Server-sent event stream of the org's domain events (no replay)",
        description:
          "text/event-stream: each message is `id`, `event` (`<resource>.<verb>`) and `data` (the JSON envelope: ids and changed field names, never clinical text); a `: keep-alive` comment every 15 s. Events missed while disconnected are not replayed. `practice_id` keeps one location's events. EventSource clients, which cannot send headers, may pass the token as `?access_token=`.",
      },
    });

/** Serves local-disk documents to holders of a valid signed URL (no bearer token needed). */
export const fileRoutes = (rt: Runtime) =>
  new Elysia({ tags: ["System"] }).use(guard(rt)).get(LOCAL_FILES_PATH, ({ query }) => downloadSignedFile(rt, query), {
    public: true,
    query: z.object({ key: z.string(), exp: z.string(), d: z.string(), fn: z.string(), ct: z.string(), sig: z.string() }),
    response: { 200: z.string().meta({ contentMediaType: "application/octet-stream" }).describe("The file's bytes"), ...errorSchemas(403, 404, 422) },
    detail: {
      summary: "Download through a signed URL (local storage)",
      description:
        "The bytes of a stored document for whoever holds a link the service signed (the `download_url` of a document's download, preview or thumbnail, valid DOCUMENT_URL_TTL_SECONDS, default 300), with its content type and file name; no bearer token. A link that was altered or has expired is 403 invalid_signature; with S3 storage the links point at S3 and this path is 404.",
      security: [],
    },
  });

/** /openapi.json (generated from the route schemas) and the interactive reference at /docs, with its assets under /docs/assets/. */
export const docsRoutes = (rt: Runtime, fetchRaw: () => Promise<Response>, routes: () => RouteLike[]) => {
  let cached: unknown;
  docsAssets(); // the viewer is read from its package now: a missing package stops the start, not the first visit
  return (
    new Elysia({ tags: ["System"] })
      .use(guard(rt))
      .get("/openapi.json", async () => (cached ??= tidyOpenApi(await (await fetchRaw()).json(), routes())), {
        public: true,
        detail: { hide: true },
        response: { 200: z.record(z.string(), z.unknown()) },
      })
      .get("/docs", () => docsPageResponse(), { public: true, detail: { hide: true } })
      // the page's own assets (docs.ts): left out of the OpenAPI document like the page
      .get(VIEWER_SCRIPT_PATH, ({ request }) => docsAssetResponse("viewer", request.headers.get("accept-encoding")), { public: true, detail: { hide: true } })
      .get(VIEWER_CONFIG_PATH, ({ request }) => docsAssetResponse("config", request.headers.get("accept-encoding")), { public: true, detail: { hide: true } })
  );
};
