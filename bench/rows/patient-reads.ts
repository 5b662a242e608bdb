// (b) a patient by id over 10,000 different patients and (c) the name-prefix
// search over 5,000 different terms, in the org of 100,000 patients.

import { sample } from "@bench/patients";
import type { RowFamily } from "@bench/runner/family";
import { writeLines } from "@bench/runner/scratch";
import { SEARCH_PAGE_SIZE } from "@bench/runner/settings";

export const patientReads: RowFamily = {
  ids: ["b", "c"],
  stage: "cusp",
  patientsOrg: { patients: true },
  async run(ctx) {
    const { server: srv, auth } = ctx;
    const org = ctx.patientsOrg();
    const P = `/api/v1/${org.id}`;
    if (ctx.selected("b")) {
      const getList = writeLines(
        "patient-paths.txt",
        sample(org.patients, 10_000).map((p) => `${P}/patients/${p.id}`),
      );
      console.log("(b) GET patient by id");
      await ctx.measure(srv, "b", "(b) `GET {P}/patients/{id}` (100k patients, whole stack)", srv.base + P + "/patients", {
        headers: auth,
        script: "paths.lua",
        scriptArgs: [getList],
      });
    }
    if (ctx.selected("c")) {
      const searchList = writeLines(
        "search-paths.txt",
        org.terms.map((t) => `${P}/patients?search=${encodeURIComponent(t)}&page_size=${SEARCH_PAGE_SIZE}`),
      );
      console.log(`(c) patient search by name prefix (e.g. "${org.terms[0]}", page_size=${SEARCH_PAGE_SIZE})`);
      await ctx.measure(
        srv,
        "c",
        `(c) \`GET {P}/patients?search=<first3> <last4>&page_size=${SEARCH_PAGE_SIZE}\` (name prefixes)`,
        srv.base + P + "/patients",
        { headers: auth, script: "paths.lua", scriptArgs: [searchList] },
      );
    }
  },
};
