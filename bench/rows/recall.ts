// (q1) issue 34's recall list (docs/recall/recall.md, "The recall list") over
// the patients org's 100,000 patients: 60,000 of them with a prophy recall due
// on a day of the 24 months around this one (one in ten also bitewings, one in
// twenty disabled, one in ten scheduled), every tenth patient a dependent of
// the one before (families), written straight into the org's SQLite file as
// the patients are. Measured: `GET {P}/recalls?due_from=&due_to=` for one
// month (about 2,500 recalls), pages 1-10, 50 connections: every answer one
// page query (patient, last contact, family due) and its count.

import { Database } from "bun:sqlite";
import { rng } from "@bench/patients";
import { api } from "@bench/runner/api";
import type { RowFamily } from "@bench/runner/family";
import { fmtInt } from "@bench/runner/format";
import { writeLines } from "@bench/runner/scratch";

const RECALLS = 60_000;
const MONTHS = 24;

/** The month `n` months from this one, YYYY-MM. */
const monthFrom = (n: number) => Temporal.Now.plainDateISO("UTC").toPlainYearMonth().add({ months: n }).toString();

export const recall: RowFamily = {
  ids: ["q1"],
  stage: "cusp",
  patientsOrg: { patients: true },
  async run(ctx) {
    const { server: srv, token, auth } = ctx;
    const org = ctx.patientsOrg();
    const P = `/api/v1/${org.id}`;
    const types = (await api(srv.base, "GET", `${P}/recall-types`, undefined, token)).items as { id: string; seed_key: string }[];
    const type = (key: string) => types.find((t) => t.seed_key === key)!.id;
    const seeded = seedRecalls(
      org.dbFile,
      org.patients.map((p) => p.id),
      { prophy: type("prophy"), bitewings: type("bitewings") },
    );
    console.log(`(q1) ${fmtInt(seeded.recalls)} recalls of ${fmtInt(seeded.patients)} patients (${(seeded.ms / 1000).toFixed(1)} s) -> ${org.dbFile}`);
    const month = monthFrom(1);
    const last = Temporal.PlainYearMonth.from(month).daysInMonth;
    const URL = `${P}/recalls?due_from=${month}-01&due_to=${month}-${last}`;
    const probe = await api(srv.base, "GET", URL, undefined, token);
    if (!probe.total || probe.items.length !== 50) throw new Error(`(q1) the list answered total ${probe.total} with ${probe.items?.length} items`);
    const withFamily = probe.items.filter((r: { family_due: unknown[] }) => r.family_due.length).length;
    const t0 = performance.now();
    await api(srv.base, "GET", URL, undefined, token);
    const oneMs = performance.now() - t0;
    const summary = await api(srv.base, "GET", `${P}/recalls/summary?month=${month}`, undefined, token);
    console.log(
      `    ${month}: ${fmtInt(probe.total)} recalls on the list (${withFamily} of the first 50 with family due); one answer alone ${oneMs.toFixed(1)} ms; summary total ${summary.totals.total}`,
    );
    const paths: string[] = [];
    for (let page = 1; page <= 10; page++) paths.push(`${URL}&page=${page}`);
    await ctx.measure(
      srv,
      "q1",
      `(q1) \`GET {P}/recalls\` for one month (${fmtInt(probe.total)} recalls, pages 1-10), ${fmtInt(RECALLS)} recalls over 100k patients, 50 connections`,
      srv.base,
      { headers: auth, script: "paths.lua", scriptArgs: [writeLines("recall-list-paths.txt", paths)] },
    );
    return {
      notes: () => [
        `(q1) ${fmtInt(probe.total)} recalls due in ${month} of ${fmtInt(seeded.recalls)} (${fmtInt(seeded.patients)} of the 100k patients); one answer on the idle server took ${oneMs.toFixed(1)} ms.`,
      ],
    };
  },
};

/** The recalls (and families), in one transaction. */
function seedRecalls(dbFile: string, patients: string[], types: { prophy: string; bitewings: string }) {
  const t0 = performance.now();
  const random = rng(3434);
  const db = new Database(dbFile);
  db.exec("PRAGMA busy_timeout = 10000");
  const now = new Date().toISOString();
  const today = now.slice(0, 10);
  const start = Temporal.PlainDate.from(`${monthFrom(-MONTHS / 2)}-01`);
  const span = start.until(start.add({ months: MONTHS })).days;
  const insert = db.prepare(
    `INSERT INTO patient_recalls (id, patient_id, recall_type_id, note, is_disabled, date_previous, date_due, date_scheduled, status, computed_at, created_at, updated_at, version)
     VALUES (?, ?, ?, '', ?, ?, ?, ?, ?, ?, ?, ?, 1)`,
  );
  const family = db.prepare("UPDATE patients SET responsible_party_id = ? WHERE id = ?");
  let recalls = 0;
  const write = (patient: string, type: string) => {
    const due = start.add({ days: Math.floor(random() * span) });
    const disabled = random() < 0.05;
    const scheduled = !disabled && random() < 0.1 ? due.toString() : null;
    const status = disabled ? "disabled" : scheduled ? "scheduled" : due.toString() < today ? "overdue" : "due";
    insert.run(Bun.randomUUIDv7(), patient, type, disabled ? 1 : 0, due.subtract({ months: 6 }).toString(), due.toString(), scheduled, status, now, now, now);
    recalls++;
  };
  db.transaction(() => {
    for (let i = 0; i < RECALLS; i++) {
      write(patients[i]!, types.prophy);
      if (i % 10 === 3) write(patients[i]!, types.bitewings);
      if (i % 10 === 9) family.run(patients[i - 1]!, patients[i]!);
    }
  })();
  db.close();
  return { recalls, patients: RECALLS, ms: performance.now() - t0 };
}
