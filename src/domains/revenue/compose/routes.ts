import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { todayUtc } from "@/platform/time/dates";
import { ComposeRequest, ComposeResult } from "./schemas";
import { compose } from "./parser";

/** POST /compose: a filter from a sentence (a deterministic stub; docs/revenue/revenue-lists.md). */
export const revenueComposeRoutes = (rt: Runtime) =>
  new Elysia({ name: "revenue-compose", prefix: "/api/v1/:org_id/revenue-module", tags: ["Revenue"] })
    .use(guard(rt))
    .post("/compose", ({ body }) => compose(body.query, todayUtc()), {
      permission: "revenue.read",
      body: ComposeRequest,
      response: { 200: ComposeResult, ...orgErrors(413, 415) },
      detail: {
        summary: "Compose a filter from plain English (stub)",
        description:
          "Currently a stub: a deterministic keyword parser over the field registry, no language model. Recognised phrases become AND-joined conditions; filter_definition is null (with a warning) when nothing matched. 422 when query is shorter than 3 characters once trimmed.",
      },
    });
