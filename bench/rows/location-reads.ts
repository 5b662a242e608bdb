// (e2) the foundation issue's location point read (one record, so after the
// first request a kept answer), (e2s) the same by a member scoped to that
// location, (e2u) the same over 1,000 locations walked in turn (never kept).
// In the patients org, whose patients they do not need.

import { api } from "@bench/runner/api";
import type { RowFamily } from "@bench/runner/family";
import { fmtInt } from "@bench/runner/format";
import { writeLines } from "@bench/runner/scratch";

/** (e2u): more locations than a database keeps answers for (256), so no read is a kept one. */
const COLD_LOCATIONS = 1_000;

export const locationReads: RowFamily = {
  ids: ["e2", "e2s", "e2u"],
  stage: "cusp",
  patientsOrg: {},
  async run(ctx) {
    const { server: srv, token, auth } = ctx;
    const org = ctx.patientsOrg();
    const P = `/api/v1/${org.id}`;
    const getPath = `${P}/locations/${org.location.id}`;
    if (ctx.selected("e2")) {
      console.log("(e2) GET location by id");
      await ctx.measure(srv, "e2", "(e2) `GET {P}/locations/{id}` (whole stack)", srv.base + getPath, { headers: auth });
    }

    // (e2s) a member holding locations.read at this location only: the guard
    // works out where the request acts (the path) and checks the compiled grants
    if (ctx.selected("e2s")) {
      const group = await api(srv.base, "POST", `${P}/iam/groups`, { name: "Bench location readers", permission_keys: ["locations.read"] }, token);
      const email = `bench-scoped-${Date.now().toString(36)}@example.com`;
      const password = "bench-scoped-password";
      const member = await api(srv.base, "POST", `${P}/iam/users`, { email, display_name: "Bench scoped member", password }, token);
      await api(srv.base, "POST", `${P}/iam/assignments`, { user_id: member.id, group_uuid: group.id, scope_node_uuid: org.location.id }, token);
      const scoped = await api(srv.base, "POST", "/api/v1/auth/login", { email, password });
      const probe = await fetch(srv.base + getPath, { headers: { Authorization: `Bearer ${scoped.access_token}` } });
      if (probe.status !== 200) throw new Error(`(e2s) the scoped member's read answered ${probe.status}`);
      console.log("(e2s) GET location by id, member scoped to that location");
      await ctx.measure(srv, "e2s", "(e2s) `GET {P}/locations/{id}` by a member scoped to that location", srv.base + getPath, {
        headers: { Authorization: `Bearer ${scoped.access_token}` },
      });
    }

    // (e2u) every answer uncached: more locations than a database keeps answers for (docs/decisions.md)
    if (ctx.selected("e2u")) {
      const coldIds: string[] = [];
      for (let i = 0; i < COLD_LOCATIONS; i++)
        coldIds.push((await api(srv.base, "POST", `${P}/locations`, { name: `Branch ${i}`, timezone: "America/Chicago" }, token)).id);
      const coldList = writeLines(
        "location-paths.txt",
        coldIds.map((id) => `${P}/locations/${id}`),
      );
      console.log(`(e2u) GET location by id over ${fmtInt(COLD_LOCATIONS)} locations (not kept)`);
      await ctx.measure(
        srv,
        "e2u",
        `(e2u) \`GET {P}/locations/{id}\` over ${fmtInt(COLD_LOCATIONS)} locations in turn (never a kept answer)`,
        srv.base + P + "/locations",
        { headers: auth, script: "paths.lua", scriptArgs: [coldList] },
      );
    }
  },
};
