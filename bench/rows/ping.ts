// (e0) `GET /api/ping` on the Cusp server: the lightest answer through every
// plugin (request id, region header, rate limits, replication position,
// serializer), no database. Issue 36's item 3 asks for 0.80 of the ceiling;
// (e1) is the framework alone, so (e1) - (e0) is what the plugins cost.

import type { RowFamily } from "@bench/runner/family";

export const ping: RowFamily = {
  ids: ["e0"],
  stage: "cusp",
  async run(ctx) {
    const { server: srv } = ctx;
    console.log("(e0) GET /api/ping through every plugin");
    await ctx.measure(srv, "e0", "(e0) `GET /api/ping` (whole stack, no database)", `${srv.base}/api/ping`);
  },
};
