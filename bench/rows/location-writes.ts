// (e3) the plain write path: `POST {P}/locations` with a JSON body, a new name
// per request (wrk/post-location.lua), in a fresh org so that the writes do
// not touch the patients org; then its floor (e30): the same POSTs against
// bench/servers/floor.ts on another fresh org's file, the Cusp server idle,
// once the floor's create is checked to answer and audit as Cusp's does.

import { api, createOrg, orgDbFile } from "@bench/runner/api";
import type { CuspContext, RowFamily } from "@bench/runner/family";
import { assertSameWrite, auditRowOf, startFloor } from "@bench/runner/floor";

/** wrk/post-location.lua's body, with its own name. */
const LOCATION = {
  name: "Floor check",
  timezone: "America/Chicago",
  address_line1: "1 Main St",
  city: "Springfield",
  state: "IL",
  postal_code: "62701",
  country: "US",
  phone: "+1 217 555 0100",
  email: "front-desk@example.com",
};

export const locationWrites: RowFamily = {
  ids: ["e3", "e30"],
  stage: "cusp",
  async run(ctx) {
    const { server: srv, token, auth } = ctx;
    if (ctx.selected("e3")) {
      const writeOrg = await createOrg(srv.base, token, "write");
      await api(srv.base, "POST", `/api/v1/${writeOrg}/locations`, { name: "Probe", timezone: "America/Chicago" }, token);
      console.log("(e3) POST create location (JSON, writes)");
      await ctx.measure(srv, "e3", "(e3) `POST {P}/locations` JSON create (whole stack, writes)", `${srv.base}/api/v1/${writeOrg}/locations`, {
        headers: auth,
        script: "post-location.lua",
      });
    }
    if (ctx.selected("e30")) await floorRow(ctx);
  },
};

/** (e30): a fresh org; one create through Cusp, then the floor on the org's file, its create compared, then measured. */
async function floorRow(ctx: CuspContext) {
  const { server: srv, token, auth } = ctx;
  const orgId = await createOrg(srv.base, token, "write-floor");
  const P = `/api/v1/${orgId}/locations`;
  const viaCusp = await api(srv.base, "POST", P, LOCATION, token);
  const { actor_id, actor_type, actor_display_name } = auditRowOf(orgDbFile(ctx.dataDir, orgId), viaCusp.id);
  const floor = await startFloor(ctx.dataDir, orgId, "write", { actor_id, actor_type, actor_display_name });
  try {
    console.log("(e30) the floor of (e3): the same creates from a bare Bun.serve");
    assertSameWrite("e30", ctx.dataDir, orgId, viaCusp, await api(floor.base, "POST", P, LOCATION, token), []);
    const row = await ctx.measure(floor, "e30", "(e30) floor of (e3): the same insert, audit row and index row from a bare `Bun.serve`", floor.base + P, {
      headers: auth,
      script: "post-location.lua",
    });
    row.floorOf = "e3";
  } finally {
    await floor.stop();
  }
}
