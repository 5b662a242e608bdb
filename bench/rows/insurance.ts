// (f1) a treatment plan estimate, 10 procedures against primary and secondary
// insurance, in a fresh org built through the API (bench/insurance.ts). The
// first run wrote the 20 estimates; every measured POST finds them fresh and
// rewrites nothing but the run itself (a front desk pressing "estimate" again).
// (f2) draft matching: imports, then the in-process job (PGlite queue)
// matches every row; rows per second from the first import to the last match.

import { type DraftsRun, PLAN_CODES, buildInsuranceFixture, runDraftsMatching } from "@bench/insurance";
import { api, createOrg } from "@bench/runner/api";
import { waitForQuiet, withCores } from "@bench/runner/cpu";
import type { RowFamily } from "@bench/runner/family";
import { fmtInt } from "@bench/runner/format";
import { assertAlive } from "@bench/runner/servers";

/** (f2): rows imported, in imports of DRAFT_CHUNK rows (the default JSON body bounds accept ~2,600). */
const DRAFT_ROWS = 10_000;
const DRAFT_CHUNK = 1_000;

export const insurance: RowFamily = {
  ids: ["f1", "f2"],
  stage: "cusp",
  sections: ["drafts"],
  async run(ctx) {
    const { server: srv, token, auth } = ctx;
    const insOrg = await createOrg(srv.base, token, "insurance");
    const insApi = (method: string, path: string, body?: unknown) => api(srv.base, method, path, body, token);
    const ins = await buildInsuranceFixture(insApi, insOrg);
    const again = await insApi("POST", ins.estimatePath);
    if (again.estimate_count !== ins.first.estimate_count) throw new Error(`the second estimate answered estimate_count ${again.estimate_count}`);
    const f1 = ctx.selected("f1");
    if (f1) {
      console.log(
        `(f1) estimate a ${PLAN_CODES.length}-procedure treatment plan, 2 plans: estimate_count ${ins.first.estimate_count}, fee ${ins.first.total_fee_billed}, insurance ${ins.first.total_insurance_estimate}, patient ${ins.first.total_patient_estimate}`,
      );
      await ctx.measure(
        srv,
        "f1",
        `(f1) \`POST {P}/clinical/patients/{id}/treatment-plans/{plan}/estimate\` (${PLAN_CODES.length} procedures × primary + secondary, estimates fresh)`,
        srv.base + ins.estimatePath,
        { headers: auth, script: "post-empty.lua" },
      );
    }

    let drafts: DraftsRun | undefined;
    if (ctx.selected("f2")) {
      console.log(`(f2) draft matching: ${fmtInt(DRAFT_ROWS)} rows in imports of ${fmtInt(DRAFT_CHUNK)}`);
      await waitForQuiet([srv.proc.pid]);
      // the row's time is its own: from the first import to the poll that saw the last row matched
      const m = await withCores(
        srv.proc.pid,
        () => runDraftsMatching(insApi, ins, DRAFT_ROWS, DRAFT_CHUNK),
        (d) => d.total_ms / 1000,
      );
      assertAlive(srv, "f2");
      drafts = m.value;
      ctx.record({
        id: "f2",
        scenario: `(f2) draft matching: ${fmtInt(DRAFT_ROWS)} rows (${drafts.imports} × \`POST {P}/insurance/drafts/import\`), first import to last row matched`,
        unit: "rows/s",
        hasRatio: false,
        rate: drafts.matched / (drafts.total_ms / 1000),
        p50_us: 0,
        p99_us: 0,
        errors: drafts.rows - drafts.matched,
        errorDetail: `${drafts.matched} matched, ${drafts.pending} pending, ${drafts.error} error${drafts.timed_out ? ", timed out" : ""}`,
        count: drafts.matched,
        cores: m.cores,
      });
      console.log(
        `    imports took ${(drafts.import_ms / 1000).toFixed(2)} s, all matched after ${(drafts.total_ms / 1000).toFixed(2)} s (${drafts.polls} polls)`,
      );
    }
    return {
      notes: () => notes(f1, drafts),
      sections: { drafts: drafts ? { ...drafts, import_ms: Math.round(drafts.import_ms), total_ms: Math.round(drafts.total_ms), chunk: DRAFT_CHUNK } : null },
    };
  },
};

function notes(f1: boolean, dr: DraftsRun | undefined): string[] {
  const line = [
    f1 ? "(f1) every measured POST finds the plan's 20 estimates fresh: nothing is rewritten but the run itself." : "",
    dr
      ? `(f2) ${fmtInt(dr.rows)} rows in ${dr.imports} imports (${(dr.import_ms / 1000).toFixed(2)} s to import), all past matching after ${(dr.total_ms / 1000).toFixed(2)} s: ${fmtInt(dr.matched)} matched, ${fmtInt(dr.pending)} pending, ${fmtInt(dr.error)} error (the end is seen by polling the totals, ${dr.polls} polls).`
      : "",
  ].filter(Boolean);
  return line.length ? [line.join(" ")] : [];
}
