// (e3) the plain write path: `POST {P}/locations` with a JSON body, a new name
// per request (wrk/post-location.lua), in a fresh org so that the writes do
// not touch the patients org.

import { api, createOrg } from "@bench/runner/api";
import type { RowFamily } from "@bench/runner/family";

export const locationWrites: RowFamily = {
  ids: ["e3"],
  stage: "cusp",
  async run(ctx) {
    const { server: srv, token, auth } = ctx;
    const writeOrg = await createOrg(srv.base, token, "write");
    await api(srv.base, "POST", `/api/v1/${writeOrg}/locations`, { name: "Probe", timezone: "America/Chicago" }, token);
    console.log("(e3) POST create location (JSON, writes)");
    await ctx.measure(srv, "e3", "(e3) `POST {P}/locations` JSON create (whole stack, writes)", `${srv.base}/api/v1/${writeOrg}/locations`, {
      headers: auth,
      script: "post-location.lua",
    });
  },
};
