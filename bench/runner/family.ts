// A family of rows: one file of bench/rows/, listed in bench/rows/index.ts.
// It says which row ids it makes, when it runs, what shared fixture it needs,
// and runs them; it may add lines under the report's table and sections to
// latest.json.

import type { Measure } from "./measure";
import type { PatientsOrg, PatientsOrgNeeds } from "./patients-org";
import type { Row } from "./row";
import type { Server } from "./servers";

/** What every family gets. */
export type RunContext = {
  /** Whether BENCH_ONLY selects row `id` (every row without BENCH_ONLY). */
  selected(id: string): boolean;
  /** Measures a wrk row against `server` and records it. */
  measure: Measure;
  /** Records (and prints) a row the family measured itself; answers it. */
  record(row: Row): Row;
};

/** The families on the Cusp server's data directory, during and after the server (stage "after-cusp"). */
export type CuspDataContext = RunContext & {
  dataDir: string;
  /** The bootstrap administrator's token. */
  token: string;
  /** The patients org; throws unless the family asked for it (`patientsOrg`). */
  patientsOrg(): PatientsOrg;
};

/** The families on the one Cusp server (stage "cusp"). */
export type CuspContext = CuspDataContext & {
  server: Server;
  /** The administrator's Authorization header, for wrk. */
  auth: Record<string, string>;
};

/** The view of the finished run the report's notes are written from. */
export type ReportView = { rows: readonly Row[]; ratio(row: Row): number };

/** What a family leaves for the report, besides its rows. */
export type Outcome = {
  /** Lines under the table, after the targets, in the order of bench/rows/index.ts. */
  notes?(view: ReportView): string[];
  /** Its sections of latest.json (named in `sections`). */
  sections?: Record<string, unknown>;
};

type Common = {
  /** The row ids BENCH_ONLY names (and the table's rows, unless `tableRows` says otherwise). */
  ids: readonly string[];
  /** BENCH_ONLY naming any of the ids runs them all (they share state or compare with each other). */
  together?: boolean;
  /** An id measured as several rows of the table, in that order ((r1) at the primary and at the edge). */
  tableRows?: Record<string, readonly string[]>;
  /** latest.json's sections the family writes: each is null when the family did not run. */
  sections?: readonly string[];
};

/**
 * When a family runs; within a stage, in the order of bench/rows/index.ts:
 * - "before-cusp": after the ceiling (a), on a server of its own;
 * - "cusp": on the one Cusp server (src/server.ts, fresh data directory) the runner starts for these;
 * - "after-cusp": once that server has stopped, on its data directory;
 * - "after-ceiling": after the ceiling again (a'), on servers of its own.
 */
export type RowFamily = Common &
  (
    | { stage: "before-cusp" | "after-ceiling"; run(ctx: RunContext): Promise<Outcome | void> }
    | { stage: "cusp"; patientsOrg?: Partial<PatientsOrgNeeds>; run(ctx: CuspContext): Promise<Outcome | void> }
    | { stage: "after-cusp"; patientsOrg?: Partial<PatientsOrgNeeds>; run(ctx: CuspDataContext): Promise<Outcome | void> }
  );
