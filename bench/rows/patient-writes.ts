// (e4) `PATCH {P}/patients/{id}`: every request a different patient of the
// 100,000 (its first change), with its current base_version
// (wrk/patch-patients.lua).

import { sample } from "@bench/patients";
import type { RowFamily } from "@bench/runner/family";
import { writeLines } from "@bench/runner/scratch";

export const patientWrites: RowFamily = {
  ids: ["e4"],
  stage: "cusp",
  patientsOrg: { patients: true },
  async run(ctx) {
    const { server: srv, auth } = ctx;
    const org = ctx.patientsOrg();
    if (!org.patients.length) return;
    const P = `/api/v1/${org.id}`;
    // the warm-up PATCHes other patients than the measured run (each starts its list at the top)
    const paths = sample(org.patients, org.patients.length, 7).map((p) => `${P}/patients/${p.id}`);
    const warmList = writeLines("patient-patch-warmup.txt", paths.slice(0, 20_000));
    const list = writeLines("patient-patch-paths.txt", paths.slice(20_000));
    console.log("(e4) PATCH a patient (JSON, writes)");
    await ctx.measure(srv, "e4", "(e4) `PATCH {P}/patients/{id}` (whole stack, writes; a different patient each time)", `${srv.base}${P}/patients`, {
      headers: auth,
      script: "patch-patients.lua",
      scriptArgs: [list],
      warmupScriptArgs: [warmList],
    });
  },
};
