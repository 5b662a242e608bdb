import { Elysia } from "elysia";
import { z } from "zod";
import type { Runtime } from "../../platform/runtime";
import { guard } from "../../platform/http/guard";
import { orgErrors } from "../../platform/http/openapi";
import { health } from "./health";
import { eventStream } from "./stream";

const Health = z.object({
  status: z.enum(["ok", "fail"]),
  failing: z.array(z.string()),
  checks: z.array(z.object({ name: z.string(), ok: z.boolean(), detail: z.string().optional() })),
  uptime_seconds: z.number(),
});

export const systemRoutes = (rt: Runtime) =>
  new Elysia({ tags: ["System"] })
    .use(guard(rt))
    .get("/api/ping", () => ({ status: "ok" as const }), { public: true, response: { 200: z.object({ status: z.literal("ok") }) }, detail: { summary: "Liveness", security: [] } })
    .get("/api/health", async ({ set }) => {
      const result = await health(rt);
      if (result.status !== "ok") set.status = 503;
      return result;
    }, { public: true, response: { 200: Health, 503: Health }, detail: { summary: "Readiness: database, cache store, storage, schema_version", security: [] } })
    .get("/api/v1/:org_id/events/stream", ({ ctx, query }) => eventStream(rt, ctx.org.id, query.practice_id ?? ""), {
      permission: { key: "events.stream", devStubUser: true },
      query: z.strictObject({ practice_id: z.string().max(64).optional().describe("Only this practice's (location's) events") }),
      response: { 200: z.string().meta({ contentMediaType: "text/event-stream" }), ...orgErrors() },
      detail: { summary: "Server-sent event stream of the org's domain events (no replay)" },
    });
