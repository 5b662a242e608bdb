// Every row of `bun run bench` besides the ceiling: the one list the runner
// (bench/run.ts) runs. A new row is a file of this folder exporting a
// RowFamily (bench/runner/family.ts), added to ROWS and its ids to REPORT_ORDER.

import type { RowFamily } from "@bench/runner/family";
import { account } from "./account";
import { booking } from "./booking";
import { claims } from "./claims";
import { cluster } from "./cluster";
import { documents } from "./documents";
import { edge } from "./edge";
import { elysia } from "./elysia";
import { frontDeskLists } from "./front-desk-lists";
import { insurance } from "./insurance";
import { locationReads } from "./location-reads";
import { locationWrites } from "./location-writes";
import { manyOrgs } from "./many-orgs";
import { patientReads } from "./patient-reads";
import { ping } from "./ping";
import { patientWrites } from "./patient-writes";
import { recall } from "./recall";
import { chartPictures } from "./chart-pictures";
import { revenueCount } from "./revenue-count";
import { statements } from "./statements";

/**
 * In the order they run (within its stage, family.ts): the figures of the rows
 * on the one Cusp server depend on what ran before them (the patients (e4)
 * changed, the org databases (m1) opened), so keep it when adding a row.
 */
export const ROWS: readonly RowFamily[] = [
  elysia, // e1
  ping, // e0
  patientReads, // b, c, c2, then their floors b0, c0
  revenueCount, // h1
  locationReads, // e2, e2s, e2u
  booking, // d, d1, s1, then the floor d0
  locationWrites, // e3, then the floor e30
  patientWrites, // e4
  account, // p1, p2, p2a
  manyOrgs, // m1
  insurance, // f1, f2
  documents, // g1, g2, g3
  statements, // t1
  claims, // k1, k2
  frontDeskLists, // u1 (adds planned work to the patients org: after the rows that read it)
  recall, // q1 (adds recalls and families to the patients org: after the rows that read it)
  chartPictures, // v1, v2
  cluster, // n1, n2
  edge, // r1, r2, r3
];

/** The report's order (the table, BENCH_ONLY's list of ids): every id of ROWS, once. */
export const REPORT_ORDER: readonly string[] = [
  "b",
  "b0",
  "c",
  "c2",
  "c0",
  "d",
  "d0",
  "d1",
  "s1",
  "e0",
  "e1",
  "e2",
  "e2s",
  "e2u",
  "e3",
  "e30",
  "e4",
  "f1",
  "f2",
  "g1",
  "g2",
  "g3",
  "h1",
  "k1",
  "k2",
  "m1",
  "n1",
  "n2",
  "p1",
  "p2",
  "p2a",
  "q1",
  "r1",
  "r2",
  "r3",
  "t1",
  "u1",
  "v1",
  "v2",
];
