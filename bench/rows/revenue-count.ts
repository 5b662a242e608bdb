// (h1) a smart-list count: three conditions over every live patient of the
// 100,000, one connection (the latency an office manager waits for; the target
// is p99 < 50 ms).

import { api } from "@bench/runner/api";
import type { RowFamily } from "@bench/runner/family";
import { fmtInt } from "@bench/runner/format";
import { writeLines } from "@bench/runner/scratch";

export const revenueCount: RowFamily = {
  ids: ["h1"],
  stage: "cusp",
  patientsOrg: { patients: true },
  async run(ctx) {
    const { server: srv, token, auth } = ctx;
    const org = ctx.patientsOrg();
    const P = `/api/v1/${org.id}`;
    const filter = {
      expected_source_snapshot_version: (await api(srv.base, "GET", `${P}/revenue-module/fields`, undefined, token)).source_version,
      filter_definition: {
        groups: [
          {
            conditions: [
              { field: "status", operator: "eq", value: "active" },
              { field: "age", operator: "gte", value: 18 },
              { field: "has_email", operator: "eq", value: true },
            ],
          },
        ],
      },
    };
    const counted = await api(srv.base, "POST", `${P}/revenue-module/count`, filter, token);
    console.log(`(h1) revenue count (status = active AND age >= 18 AND has_email): ${fmtInt(counted.count)} of ${fmtInt(org.patients.length)} patients`);
    const bodyFile = writeLines("revenue-count.json", [JSON.stringify(filter)]);
    await ctx.measure(
      srv,
      "h1",
      "(h1) `POST {P}/revenue-module/count`, 3 conditions over 100k patients, 1 connection",
      srv.base + P + "/revenue-module/count",
      { headers: auth, script: "post-json.lua", scriptArgs: [bodyFile], connections: 1 },
    );
  },
};
