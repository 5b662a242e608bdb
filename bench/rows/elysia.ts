// (e1) Elysia hello-world: the framework alone (bench/servers/elysia.ts), to
// compare with the ceiling.

import { join } from "node:path";
import type { RowFamily } from "@bench/runner/family";
import { startServer } from "@bench/runner/servers";
import { BENCH } from "@bench/runner/settings";

export const elysia: RowFamily = {
  ids: ["e1"],
  stage: "before-cusp",
  async run(ctx) {
    console.log("(e1) Elysia hello-world");
    const srv = await startServer("elysia", join(BENCH, "servers", "elysia.ts"), {}, "/");
    await ctx.measure(srv, "e1", "(e1) Elysia hello-world", `${srv.base}/`);
    await srv.stop();
  },
};
