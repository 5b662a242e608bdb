// (m1) many orgs: BENCH_MANY_ORGS (500) orgs of BENCH_MANY_PATIENTS (2,000)
// patients (one loaded, its file copied, bench/many-orgs.ts), a random org's
// random patient per request; then the server's memory and open files.

import { buildManyOrgs, manyOrgPaths, processFootprint } from "@bench/many-orgs";
import { api, createOrg, orgDbFile } from "@bench/runner/api";
import type { RowFamily } from "@bench/runner/family";
import { fmtInt } from "@bench/runner/format";
import { inParallel } from "@bench/runner/parallel";
import { writeLines } from "@bench/runner/scratch";

const MANY_ORGS = Number(process.env.BENCH_MANY_ORGS ?? 500);
const MANY_PATIENTS = Number(process.env.BENCH_MANY_PATIENTS ?? 2_000);

export const manyOrgs: RowFamily = {
  ids: ["m1"],
  stage: "cusp",
  async run(ctx) {
    const { server: srv, token, auth, dataDir } = ctx;
    console.log(`(m1) ${fmtInt(MANY_ORGS)} orgs of ${fmtInt(MANY_PATIENTS)} patients`);
    const template = await createOrg(srv.base, token, "many");
    const many = buildManyOrgs(dataDir, template, orgDbFile(dataDir, template), MANY_ORGS, MANY_PATIENTS);
    console.log(
      `  loaded ${fmtInt(many.patients.length)} patients in ${(many.loadMs / 1000).toFixed(1)} s, ${fmtInt(many.orgs.length - 1)} copies in ${(many.copyMs / 1000).toFixed(1)} s`,
    );
    const probe = await api(srv.base, "GET", `/api/v1/${many.orgs.at(-1)}/patients/${many.patients[0]!.id}`, undefined, token);
    if (probe.id !== many.patients[0]!.id) throw new Error(`(m1) the last copy answered ${JSON.stringify(probe).slice(0, 200)}`);
    const before = processFootprint(srv.proc.pid);
    // Each org's first request opens its database (the schema parsed, the
    // statements prepared): done here once per org, and timed, so the measured
    // run is 500 open orgs served, as every row's warm-up leaves first touches
    // out of its figure.
    const opening = await openEveryOrg(srv.base, token, many.orgs, many.patients[0]!.id);
    console.log(`  opened ${fmtInt(many.orgs.length)} orgs (first request each) in ${(opening / 1000).toFixed(2)} s`);
    const row = await ctx.measure(
      srv,
      "m1",
      `(m1) \`GET {P}/patients/{id}\`, a random org of ${fmtInt(MANY_ORGS)} (${fmtInt(MANY_PATIENTS)} patients each) per request`,
      srv.base + "/api/v1",
      { headers: auth, script: "paths.lua", scriptArgs: [writeLines("many-org-paths.txt", manyOrgPaths(many, 10_000))] },
    );
    const after = processFootprint(srv.proc.pid);
    row.rss_mb = after.rss_mb;
    row.scenario += `; first request of each org beforehand ${(opening / many.orgs.length).toFixed(1)} ms an org; server RSS ${after.rss_mb} MB (${before.rss_mb} before), ${after.open_files} open files (${before.open_files} before), ORG_DB_CACHE_SIZE ${process.env.ORG_DB_CACHE_SIZE ?? 512}`;
    console.log(`  server RSS ${before.rss_mb} -> ${after.rss_mb} MB, open files ${before.open_files} -> ${after.open_files}`);
  },
};

/** One request to each org, four at a time: its database opened. Milliseconds taken. */
async function openEveryOrg(base: string, token: string, orgs: readonly string[], patientId: string): Promise<number> {
  const start = performance.now();
  await inParallel(orgs, 4, async (org) => {
    const answer = await api(base, "GET", `/api/v1/${org}/patients/${patientId}`, undefined, token);
    if (answer.id !== patientId) throw new Error(`(m1) org ${org} answered ${JSON.stringify(answer).slice(0, 200)}`);
  });
  return performance.now() - start;
}
