// (b) a patient by id over 10,000 different patients, (c) the name-prefix
// search over 5,000 different terms and (c2) 1,000 names typed keystroke by
// keystroke, in the org of 100,000 patients; then
// their floors (b0) and (c0): the same paths against bench/servers/floor.ts on
// the same org file, the Cusp server idle, once its answers are checked equal
// to Cusp's.

import { keystrokeTerms, sample } from "@bench/patients";
import type { CuspContext, RowFamily } from "@bench/runner/family";
import { assertSameReads, startFloor } from "@bench/runner/floor";
import { writeLines } from "@bench/runner/scratch";
import { SEARCH_PAGE_SIZE } from "@bench/runner/settings";

/** Requests whose answers the floor must give as Cusp does before it is measured. */
const CHECKED = 50;

export const patientReads: RowFamily = {
  ids: ["b", "b0", "c", "c2", "c0"],
  stage: "cusp",
  patientsOrg: { patients: true },
  async run(ctx) {
    const { server: srv, auth } = ctx;
    const org = ctx.patientsOrg();
    const P = `/api/v1/${org.id}`;
    const getPaths = sample(org.patients, 10_000).map((p) => `${P}/patients/${p.id}`);
    const searchPaths = org.terms.map((t) => searchPath(P, t));
    const getList = writeLines("patient-paths.txt", getPaths);
    const searchList = writeLines("search-paths.txt", searchPaths);
    const getRow = { headers: auth, script: "paths.lua", scriptArgs: [getList] };
    const searchRow = { headers: auth, script: "paths.lua", scriptArgs: [searchList] };
    if (ctx.selected("b")) {
      console.log("(b) GET patient by id");
      await ctx.measure(srv, "b", "(b) `GET {P}/patients/{id}` (100k patients, whole stack)", srv.base + P + "/patients", getRow);
    }
    if (ctx.selected("c")) {
      console.log(`(c) patient search by name prefix (e.g. "${org.terms[0]}", page_size=${SEARCH_PAGE_SIZE})`);
      await ctx.measure(
        srv,
        "c",
        `(c) \`GET {P}/patients?search=<first3> <last4>&page_size=${SEARCH_PAGE_SIZE}\` (name prefixes)`,
        srv.base + P + "/patients",
        searchRow,
      );
    }
    if (ctx.selected("c2")) {
      // search as people type (issue 36): 1,000 names typed keystroke by keystroke from the third letter
      const typed = keystrokeTerms(org.patients, 1_000);
      const typedList = writeLines(
        "keystroke-paths.txt",
        typed.map((t) => searchPath(P, t)),
      );
      console.log(
        `(c2) patient search as typed: ${typed.length} keystrokes of 1,000 names (e.g. ${typed
          .slice(0, 4)
          .map((t) => `"${t}"`)
          .join(", ")})`,
      );
      await ctx.measure(
        srv,
        "c2",
        `(c2) \`GET {P}/patients?search=<each keystroke>&page_size=${SEARCH_PAGE_SIZE}\` (1,000 names typed from the third letter, ${typed.length} searches)`,
        srv.base + P + "/patients",
        { headers: auth, script: "paths.lua", scriptArgs: [typedList] },
      );
    }
    if (!ctx.selected("b0") && !ctx.selected("c0")) return;
    const floor = await startFloor(ctx.dataDir, org.id, "patients");
    try {
      if (ctx.selected("b0")) {
        console.log("(b0) the floor of (b): the same GETs from a bare Bun.serve");
        await assertSameReads("b0", srv, floor, [...getPaths.slice(0, CHECKED), `${P}/patients/${org.apiPatient.id}`], auth);
        const row = await ctx.measure(floor, "b0", "(b0) floor of (b): the same SQL and JSON from a bare `Bun.serve`", floor.base + P + "/patients", getRow);
        row.floorOf = "b";
      }
      if (ctx.selected("c0")) {
        console.log("(c0) the floor of (c): the same searches from a bare Bun.serve");
        await assertSameReads("c0", srv, floor, checkedSearches(ctx, P), auth);
        const row = await ctx.measure(
          floor,
          "c0",
          `(c0) floor of (c): the same SQL and JSON from a bare \`Bun.serve\``,
          floor.base + P + "/patients",
          searchRow,
        );
        row.floorOf = "c";
      }
    } finally {
      await floor.stop();
    }
  },
};

const searchPath = (P: string, term: string) => `${P}/patients?search=${encodeURIComponent(term)}&page_size=${SEARCH_PAGE_SIZE}`;

/**
 * The bench's terms, and one of each other reading the floor answers: "Last,
 * First", a chart number, the patient created through the API, a term that
 * finds nobody, and the second page of the commonest last name (which also
 * reads as an email: the name is in every one of theirs).
 */
export function checkedSearches(ctx: CuspContext, P: string): string[] {
  const org = ctx.patientsOrg();
  const p = org.patients[7]!;
  return [
    ...org.terms.slice(0, CHECKED).map((t) => searchPath(P, t)),
    searchPath(P, `${p.last_name}, ${p.first_name.slice(0, 2)}`),
    searchPath(P, "B000123"),
    searchPath(P, "Api Crea"),
    searchPath(P, "Zzq Xxv"),
    `${searchPath(P, commonest(org.patients.map((x) => x.last_name)))}&page=2`,
  ];
}

/** The value `xs` hold most often. */
function commonest(xs: string[]): string {
  const counts = new Map<string, number>();
  for (const x of xs) counts.set(x, (counts.get(x) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]![0];
}
