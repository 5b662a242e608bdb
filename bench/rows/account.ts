// The patient account (issue 32), in a fresh org of its own:
// (p1) `POST {P}/patients/{id}/payments` with three splits (one per provider),
//      each request to another of 40,000 patients who owe three charges each
//      (patients and charges written straight into the org's SQLite file, as
//      the patients org's are): the account's write path (payment row, three
//      ledger entries with their audit rows and events, the patient re-aged);
// (p2) `GET {P}/patients/{id}/account/entries?page_size=100`: a family of 6
//      (a guarantor and five dependents) whose ledger holds 2,000 entries, all
//      posted through the API (completed procedures, payments split three ways,
//      adjustments over two years): the merged page with its running balance;
// (p2a) `GET {P}/patients/{id}/account` for the same family: aging, credit,
//      last payment and statement. The paths alternate over the six members;
//      (p2) and (p2a) on one connection, as (h1): their p99 is what one front
//      desk waits, not a queue.

import { Database } from "bun:sqlite";
import { loadPatients, sample } from "@bench/patients";
import { api, createOrg, orgDbFile } from "@bench/runner/api";
import type { RowFamily } from "@bench/runner/family";
import { fmtInt } from "@bench/runner/format";
import { writeLines } from "@bench/runner/scratch";

/** (p1): patients paid, one payment each (the warm-up takes the first WARMUP_PATIENTS, the run the rest, never wrapping). */
const PAYING_PATIENTS = 40_000;
const WARMUP_PATIENTS = 8_000;
const CHARGES_EACH = 3;
/** (p2): the family's size and its ledger. */
const FAMILY = 6;
const FAMILY_ENTRIES = 2_000;
const HISTORY_DAYS = 730;
/** Teeth a posterior composite (D2391) may be charted on. */
const POSTERIOR = ["2", "3", "4", "5", "12", "13", "14", "15", "18", "19", "20", "21", "28", "29", "30", "31"];

const ago = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);

export const account: RowFamily = {
  ids: ["p1", "p2", "p2a"],
  stage: "cusp",
  async run(ctx) {
    const { server: srv, token, auth } = ctx;
    const org = await createOrg(srv.base, token, "account");
    const P = `/api/v1/${org}`;
    const call = (method: string, path: string, body?: unknown) => api(srv.base, method, P + path, body, token);
    const location = await call("POST", "/locations", { name: "Lakeside Dental", timezone: "America/Chicago" });
    const providers: string[] = [];
    for (const [i, last] of ["Molar", "Crown", "Floss"].entries()) {
      providers.push((await call("POST", "/providers", { abbreviation: `AC${i + 1}`, first_name: "Dana", last_name: last })).id);
    }
    const cash = (await call("GET", "/definitions?category=payment_types")).items.find((d: { item_name: string }) => d.item_name === "Cash").id as string;
    const notes: string[] = [];

    if (ctx.selected("p1")) {
      const dbFile = orgDbFile(ctx.dataDir, org);
      const { patients, ms } = loadPatients(dbFile, PAYING_PATIENTS, 97, { location_id: location.id, primary_provider_id: providers[0]! });
      const chargesMs = seedCharges(
        dbFile,
        patients.map((p) => p.id),
      );
      console.log(
        `(p1) ${fmtInt(PAYING_PATIENTS)} patients (${(ms / 1000).toFixed(1)} s) with ${CHARGES_EACH} charges each (${(chargesMs / 1000).toFixed(1)} s), written into ${dbFile}`,
      );
      const body = { amount: 90, payment_type_uuid: cash, splits: providers.map((provider_uuid) => ({ provider_uuid, amount: 30 })) };
      const probe = await call("POST", `/patients/${patients[0]!.id}/payments`, body);
      if (probe.splits?.length !== 3 || probe.unallocated !== "0.00") throw new Error(`(p1) the probe payment answered ${JSON.stringify(probe).slice(0, 300)}`);
      const paths = sample(patients.slice(1), patients.length - 1, 5).map((p) => `${P}/patients/${p.id}/payments`);
      const bodyFile = writeLines("payment-3-splits.json", [JSON.stringify(body)]);
      const warm = writeLines("payment-warmup-paths.txt", paths.slice(0, WARMUP_PATIENTS));
      const measured = writeLines("payment-paths.txt", paths.slice(WARMUP_PATIENTS));
      console.log("(p1) POST a payment with three splits (writes)");
      await ctx.measure(srv, "p1", "(p1) `POST {P}/patients/{id}/payments`, 3 splits (whole stack, writes; another patient each time)", srv.base + P, {
        headers: auth,
        script: "post-json-paths.lua",
        scriptArgs: [measured, bodyFile],
        warmupScriptArgs: [warm, bodyFile],
      });
      const written = countPayments(dbFile);
      if (written.entries !== 3 * written.payments) throw new Error(`(p1) ${written.payments} payments but ${written.entries} split entries`);
      notes.push(
        `(p1) ${fmtInt(written.payments)} payments written in all (probe, warm-up and run), ${fmtInt(written.entries)} split entries (3 each); every patient owed ${CHARGES_EACH} charges and was paid at most once.`,
      );
    }

    if (ctx.selected("p2") || ctx.selected("p2a")) {
      const t0 = performance.now();
      const family = await buildFamily(call, location.id, providers, cash);
      const seconds = ((performance.now() - t0) / 1000).toFixed(1);
      const page = await call("GET", `/patients/${family[3]}/account/entries?page_size=100`);
      const summary = await call("GET", `/patients/${family[5]}/account`);
      if (page.total !== FAMILY_ENTRIES || page.items.length !== 100 || summary.members.length !== FAMILY)
        throw new Error(`(p2) the family has ${page.total} entries, ${summary.members.length} members`);
      console.log(
        `(p2) a family of ${FAMILY} with ${fmtInt(FAMILY_ENTRIES)} ledger entries, posted through the API in ${seconds} s; balance ${summary.totals.balance_total}`,
      );
      notes.push(
        `(p2), (p2a) the family: a guarantor and ${FAMILY - 1} dependents, ${fmtInt(FAMILY_ENTRIES)} entries over ${HISTORY_DAYS} days posted through the API (completed procedures, payments split three ways, adjustments; ${seconds} s); family balance ${summary.totals.balance_total}.`,
      );
      const one = (id: string, scenario: string, file: string, path: (member: string) => string) =>
        ctx.measure(srv, id, scenario, srv.base + P, {
          headers: auth,
          script: "paths.lua",
          scriptArgs: [
            writeLines(
              file,
              family.map((m) => `${P}${path(m)}`),
            ),
          ],
          connections: 1,
        });
      if (ctx.selected("p2")) {
        const scenario = `(p2) \`GET {P}/patients/{id}/account/entries?page_size=100\`, a family of ${FAMILY} with ${fmtInt(FAMILY_ENTRIES)} entries, 1 connection`;
        await one("p2", scenario, "account-entries-paths.txt", (m) => `/patients/${m}/account/entries?page_size=100`);
      }
      if (ctx.selected("p2a")) {
        await one("p2a", "(p2a) `GET {P}/patients/{id}/account`, the same family, 1 connection", "account-paths.txt", (m) => `/patients/${m}/account`);
      }
    }
    return { notes: () => notes };
  },
};

/** CHARGES_EACH manual charges per patient over the last 120 days, in one transaction (what the payments pay against). */
function seedCharges(dbFile: string, patientIds: string[]): number {
  const t0 = performance.now();
  const db = new Database(dbFile);
  db.exec("PRAGMA busy_timeout = 10000");
  const insert = db.prepare(
    `INSERT INTO ledger_entries (id, patient_id, entry_type, amount_cents, entry_date, description, source, payer, created_at, updated_at, version)
     VALUES (?1, ?2, 'charge', ?3, ?4, 'Balance forward', 'manual', 'patient', ?5, ?5, 1)`,
  );
  const now = new Date().toISOString();
  db.transaction(() => {
    patientIds.forEach((id, i) => {
      for (let k = 0; k < CHARGES_EACH; k++) insert.run(Bun.randomUUIDv7(), id, 5_000 + ((i + k) % 20) * 1_250, ago(((i * 7 + k * 40) % 120) + 1), now);
    });
  })();
  db.close();
  return performance.now() - t0;
}

/** Payments and their split entries, in one statement (one snapshot: a request wrk left in flight may still commit). */
function countPayments(dbFile: string): { payments: number; entries: number } {
  const db = new Database(dbFile, { readonly: true });
  const counts = db
    .query("SELECT (SELECT count(*) FROM payments) AS payments, (SELECT count(*) FROM ledger_entries WHERE source = 'payment') AS entries")
    .get() as { payments: number; entries: number };
  db.close();
  return counts;
}

type Call = (method: string, path: string, body?: unknown) => Promise<any>;

/**
 * A guarantor and FAMILY - 1 dependents, and FAMILY_ENTRIES ledger entries
 * among them through the API, oldest first over HISTORY_DAYS: per visit two
 * completed procedures and a payment split three ways (the first split to the
 * last procedure), a courtesy discount every fourth visit. Each member's
 * operations run in order, the members side by side.
 */
async function buildFamily(call: Call, locationId: string, providers: string[], cash: string): Promise<string[]> {
  const person = (first_name: string, guarantor?: string) =>
    call("POST", "/patients", {
      first_name,
      last_name: "Bench",
      date_of_birth: guarantor ? "2012-04-09" : "1979-08-21",
      location_uuid: locationId,
      ...(guarantor ? { responsible_party_uuid: guarantor } : {}),
    });
  const guarantor = (await person("Gail")).uuid as string;
  const members = [guarantor];
  for (const name of ["Hugo", "Iris", "Jude", "Kira", "Liam"].slice(0, FAMILY - 1)) members.push((await person(name, guarantor)).uuid);
  const code = (await call("GET", "/codes/procedure-codes?search=D2391")).items.find((c: { code: string }) => c.code === "D2391").id as string;
  const discount = (await call("GET", "/definitions?category=adjustment_types")).items.find(
    (d: { item_name: string }) => d.item_name === "Courtesy discount",
  ).id;

  type Op = { kind: "procedure" | "payment" | "adjustment"; member: number; date: string; n: number };
  const ops: Op[] = [];
  let entries = 0;
  for (let visit = 0; entries < FAMILY_ENTRIES; visit++) {
    const kinds: Op["kind"][] = ["procedure", "procedure", "payment", ...(visit % 4 === 3 ? (["adjustment"] as const) : [])];
    for (const kind of kinds) {
      const size = kind === "payment" ? 3 : 1;
      if (entries + size > FAMILY_ENTRIES) continue;
      ops.push({ kind, member: visit % FAMILY, date: "", n: ops.length });
      entries += size;
    }
  }
  ops.forEach((o) => (o.date = ago(HISTORY_DAYS - Math.floor((o.n * HISTORY_DAYS) / ops.length))));

  const lastProcedure = new Map<number, string>();
  const runMember = async (member: number) => {
    for (const o of ops.filter((x) => x.member === member)) {
      const patient = members[member]!;
      if (o.kind === "procedure") {
        const proc = await call("POST", `/clinical/patients/${patient}/procedures`, {
          procedure_code_uuid: code,
          status: "complete",
          fee_override: 80 + (o.n % 7) * 25,
          provider_uuid: providers[o.n % providers.length],
          location_uuid: locationId,
          tooth_number: POSTERIOR[o.n % POSTERIOR.length],
          surfaces: "O",
          date_service: o.date,
        });
        lastProcedure.set(member, proc.id);
      } else if (o.kind === "payment") {
        const splits = providers.map((provider_uuid, i) => ({
          provider_uuid,
          amount: 20,
          ...(i === 0 && lastProcedure.has(member) ? { procedure_uuid: lastProcedure.get(member) } : {}),
        }));
        await call("POST", `/patients/${patient}/payments`, { amount: 60, payment_type_uuid: cash, payment_date: o.date, splits });
      } else {
        await call("POST", `/patients/${patient}/adjustments`, { amount: -10, adjustment_type_uuid: discount, entry_date: o.date });
      }
    }
  };
  await Promise.all(members.map((_, i) => runMember(i)));
  return members;
}
