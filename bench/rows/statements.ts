// (t1) a statement batch of 1,000 guarantors (docs/account/statements.md): a
// fresh org with a practice and BENCH_GUARANTORS families built through the
// API (a charge and a payment each in the period; every fourth family with a
// dependent who has a charge), then `POST {P}/statements/batch` (mode mail)
// and the runner polls `GET {P}/statement-batches/{id}` until it is done. The
// in-process workers on the PGlite queue select the guarantors
// (statements.batch) and render each statement (statements.render: the
// family's ledger read, the PDF drawn by pdf-lib, stored as a document,
// the statement marked ready). Statements per second from the POST to the
// poll that saw the batch done.

import { api, createOrg } from "@bench/runner/api";
import { waitForQuiet, withCores } from "@bench/runner/cpu";
import type { RowFamily } from "@bench/runner/family";
import { fmtInt } from "@bench/runner/format";
import { inParallel } from "@bench/runner/parallel";
import { assertAlive } from "@bench/runner/servers";

/** Families in the batch. */
const BENCH_GUARANTORS = 1_000;
/** Fixture calls in flight at once (building the families is not measured). */
const FIXTURE_CONCURRENCY = 16;
/** The runner's poll of the batch's progress. */
const POLL_MS = 50;
/** A batch not done by then is reported with its progress as errors. */
const TIMEOUT_MS = 300_000;

type StatementsRun = {
  guarantors: number;
  total: number;
  done: number;
  failed: number;
  /** From the POST until the poll that saw the total (the selection's first chunk committed). */
  selected_ms: number;
  total_ms: number;
  polls: number;
  timed_out: boolean;
};

const DAY_MS = 86_400_000;
const daysAgo = (n: number) => new Date(Date.now() - n * DAY_MS).toISOString().slice(0, 10);

export const statements: RowFamily = {
  ids: ["t1"],
  stage: "cusp",
  sections: ["statements"],
  async run(ctx) {
    const { server: srv, token } = ctx;
    const org = await createOrg(srv.base, token, "statements");
    const call = (method: string, path: string, body?: unknown) => api(srv.base, method, `/api/v1/${org}${path}`, body, token);
    const location = await call("POST", "/locations", {
      name: "Bench Family Dental",
      timezone: "America/New_York",
      address_line1: "100 Main Street",
      city: "Hartford",
      state: "CT",
      postal_code: "06103",
      phone: "860-555-0100",
    });
    const check = (await call("GET", "/definitions?category=payment_types&page_size=200")).items.find((d: { item_name: string }) => d.item_name === "Check").id;
    console.log(`(t1) statements: ${fmtInt(BENCH_GUARANTORS)} families through the API (not measured)`);
    const built = performance.now();
    await inParallel(
      Array.from({ length: BENCH_GUARANTORS }, (_, i) => i),
      FIXTURE_CONCURRENCY,
      async (i) => {
        const g = await call("POST", "/patients", {
          first_name: `Guarantor${i}`,
          last_name: "Bench",
          date_of_birth: "1975-05-05",
          location_uuid: location.id,
          address_line1: `${i + 1} Elm Street`,
          city: "Hartford",
          state: "CT",
          postal_code: "06105",
        });
        await call("POST", `/patients/${g.id}/ledger-entries`, {
          entry_type: "charge",
          amount: 150 + (i % 50),
          entry_date: daysAgo(20 + (i % 20)),
          description: "D2740 crown",
        });
        await call("POST", `/patients/${g.id}/payments`, { amount: 40, payment_type_uuid: check, payment_date: daysAgo(5) });
        if (i % 4 === 0) {
          const kid = await call("POST", "/patients", {
            first_name: `Dependent${i}`,
            last_name: "Bench",
            date_of_birth: "2012-06-06",
            location_uuid: location.id,
            responsible_party_uuid: g.id,
          });
          await call("POST", `/patients/${kid.id}/ledger-entries`, {
            entry_type: "charge",
            amount: 95,
            entry_date: daysAgo(12),
            description: "D1120 prophylaxis",
          });
        }
      },
    );
    console.log(`    built in ${((performance.now() - built) / 1000).toFixed(1)} s`);
    let run: StatementsRun | undefined;
    if (ctx.selected("t1")) {
      await waitForQuiet([srv.proc.pid]);
      const m = await withCores(
        srv.proc.pid,
        async (): Promise<StatementsRun> => {
          const t0 = performance.now();
          const batch = await call("POST", "/statements/batch", { mode: "mail", min_balance: 0.01 });
          let polls = 0;
          let selected_ms = 0;
          for (;;) {
            const b = await call("GET", `/statement-batches/${batch.id}`);
            polls++;
            const ms = performance.now() - t0;
            if (!selected_ms && b.total > 0) selected_ms = ms;
            if (b.status === "done" || ms > TIMEOUT_MS)
              return {
                guarantors: BENCH_GUARANTORS,
                total: b.total,
                done: b.done,
                failed: b.failed,
                selected_ms,
                total_ms: ms,
                polls,
                timed_out: b.status !== "done",
              };
            await Bun.sleep(POLL_MS);
          }
        },
        (r) => r.total_ms / 1000,
      );
      assertAlive(srv, "t1");
      run = m.value;
      ctx.record({
        id: "t1",
        scenario: `(t1) statement batch: ${fmtInt(BENCH_GUARANTORS)} guarantors (\`POST {P}/statements/batch\`, mode mail), POST to the batch done: selection, then each statement's family ledger read, PDF rendered and stored as a document`,
        unit: "statements/s",
        hasRatio: false,
        rate: run.done / (run.total_ms / 1000),
        p50_us: 0,
        p99_us: 0,
        errors: run.guarantors - run.done,
        errorDetail: `${run.done} done, ${run.failed} failed, total ${run.total}${run.timed_out ? ", timed out" : ""}`,
        count: run.done,
        cores: m.cores,
      });
      console.log(
        `    selected after ${(run.selected_ms / 1000).toFixed(2)} s, done after ${(run.total_ms / 1000).toFixed(2)} s (${run.polls} polls): ${run.done} done, ${run.failed} failed`,
      );
    }
    return {
      notes: () =>
        run
          ? [
              `(t1) ${fmtInt(run.done)} of ${fmtInt(run.guarantors)} statements ready ${(run.total_ms / 1000).toFixed(2)} s after the batch's POST (the total was known after ${(run.selected_ms / 1000).toFixed(2)} s); each is a family ledger read, a one-page PDF (pdf-lib) stored as a document, and a write; the end is seen by polling the batch every ${POLL_MS} ms.`,
            ]
          : [],
      sections: { statements: run ? { ...run, selected_ms: Math.round(run.selected_ms), total_ms: Math.round(run.total_ms) } : null },
    };
  },
};
