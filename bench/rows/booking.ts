// (d) the four-call booking pipeline at BENCH_BOOKING_CONCURRENCY loops, (d1)
// the same from one loop (a booking's latency without queueing), (s1) the
// same as (d) while 1,000 event streams are open; then the double-booking
// checks over every booking of the three; then (d0), the floor of (d)
// (rows/booking-floor.ts). They run together: (d1), (s1) and (d0) continue
// (d)'s slots and (s1) compares with (d).

import { join } from "node:path";
import { type BookingCheck, type BookingResult, bookingRow, doubleBookingProbe, runBookingClient, verifyNoDoubleBooking } from "@bench/booking";
import { createOrg } from "@bench/runner/api";
import { waitForQuiet } from "@bench/runner/cpu";
import type { CuspContext, RowFamily } from "@bench/runner/family";
import { fmtInt, fmtLat } from "@bench/runner/format";
import type { Row, StreamsResult } from "@bench/runner/row";
import { children, writeLines } from "@bench/runner/scratch";
import { assertAlive } from "@bench/runner/servers";
import { BENCH, BOOKING_CONCURRENCY, DURATION, ROOT, WARMUP } from "@bench/runner/settings";
import { floorBookingRow } from "./booking-floor";

/** (s1): orgs with event streams open (the booking org is the first), and streams in each. */
const STREAM_ORGS = Number(process.env.BENCH_STREAM_ORGS ?? 20);
const STREAMS_PER_ORG = Number(process.env.BENCH_STREAMS_PER_ORG ?? 50);

type BookingRun = { warmup: BookingResult | undefined; measured: BookingResult; solo: BookingResult; check: BookingCheck };

export const booking: RowFamily = {
  ids: ["d", "d0", "d1", "s1"],
  together: true,
  stage: "cusp",
  patientsOrg: { patients: true, chairs: true },
  sections: ["booking"],
  async run(ctx) {
    const { server: srv, token } = ctx;
    const org = ctx.patientsOrg();
    // a warm-up run, then the measured run (slots continue)
    console.log(`(d) booking pipeline, ${BOOKING_CONCURRENCY} concurrent loops`);
    const warm = WARMUP > 0 ? await runBookingClient(srv, org, token, WARMUP, 0) : undefined;
    await waitForQuiet([srv.proc.pid]);
    const b = await runBookingClient(srv, org, token, DURATION, warm?.next_slot ?? 0);
    assertAlive(srv, "d");
    const dRow = ctx.record(bookingRow("d", "(d) booking pipeline: search → appointment types → `POST {P}/appointments` → 201", b));
    logPhases(b);
    // (d1) the same pipeline from one loop: a booking's latency without queueing
    const solo = await runBookingClient(srv, org, token, Math.max(1, Math.round(DURATION / 2)), b.next_slot, 1);
    assertAlive(srv, "d1");
    ctx.record(bookingRow("d1", "(d1) booking pipeline, one loop (latency without queueing)", solo));
    logPhases(solo);
    // (s1) the pipeline again with 1,000 event streams open over 20 orgs (this one and 19 more)
    const withStreams = await streamsRow(ctx, solo.next_slot, dRow);
    const probe = await doubleBookingProbe(srv, org, token);
    const createdTotal = (warm ? warm.bookings + warm.bad_bodies : 0) + b.bookings + b.bad_bodies + solo.bookings + solo.bad_bodies + withStreams.created;
    const check = verifyNoDoubleBooking(org.dbFile, org.chairs, createdTotal, probe);
    console.log(
      `  double booking check: ${check.ok ? "OK" : "FAILED"}: ${fmtInt(check.in_database)} live appointments in the database (${fmtInt(check.created)} created), ${check.overlaps.length} overlaps over ${check.providers_checked} providers and ${check.operatories_checked} operatories; race probe: ${probe.created} of ${probe.requests} won, ${probe.conflicts} got 409 booking_conflict${probe.other.length ? `, other: ${probe.other.join("; ")}` : ""}`,
    );
    dRow.doubleBookingOk = check.ok;
    // where (d0), then (n1) and (n2) continue
    org.calendar = { nextSlot: withStreams.nextSlot, created: check.created };
    if (ctx.selected("d0")) org.calendar = await floorBookingRow(ctx, withStreams.nextSlot, check);
    const run: BookingRun = { warmup: warm, measured: b, solo, check };
    return { notes: () => notes(run), sections: { booking: section(run) } };
  },
};

function logPhases(b: BookingResult) {
  const { search, types, create } = b.phases;
  console.log(
    `    per call p50/p99: search ${fmtLat(search.p50_us)}/${fmtLat(search.p99_us)}, types ${fmtLat(types.p50_us)}/${fmtLat(types.p99_us)}, create ${fmtLat(create.p50_us)}/${fmtLat(create.p99_us)}`,
  );
}

/**
 * (s1): BENCH_STREAM_ORGS (20) orgs × BENCH_STREAMS_PER_ORG (50) open event
 * streams held by bench/clients/streams.ts while the booking pipeline runs as
 * in (d) on the first of them; the row is the booking rate then, its scenario
 * says how late the events reached their streams (p50 / p99), and any event
 * of another org, duplicate or miss counts as an error. Answers what the
 * double-booking check and the next rows need.
 */
async function streamsRow(ctx: CuspContext, firstSlot: number, d: Row) {
  const { server: srv, token } = ctx;
  const org = ctx.patientsOrg();
  const orgs = [org.id];
  for (let i = 1; i < STREAM_ORGS; i++) orgs.push(await createOrg(srv.base, token, `streams-${i}`));
  const cfgFile = writeLines("streams.json", [JSON.stringify({ base: srv.base, token, orgs, streams_per_org: STREAMS_PER_ORG })]);
  console.log(`(s1) booking pipeline with ${fmtInt(orgs.length * STREAMS_PER_ORG)} event streams open over ${orgs.length} orgs`);
  // Bun's fetch holds at most 256 connections at once unless told otherwise
  const holder = Bun.spawn([process.execPath, "run", join(BENCH, "clients", "streams.ts"), cfgFile], {
    cwd: ROOT,
    env: { ...process.env, BUN_CONFIG_MAX_HTTP_REQUESTS: String(STREAM_ORGS * STREAMS_PER_ORG + 64) },
    stdout: "pipe",
    stderr: "inherit",
  });
  children.add(holder);
  let out = "";
  const decoder = new TextDecoder();
  const pump = (async () => {
    for await (const chunk of holder.stdout as ReadableStream<Uint8Array>) out += decoder.decode(chunk);
  })();
  const deadline = Date.now() + 90_000;
  while (!out.includes("STREAMS_READY")) {
    if (Date.now() > deadline || holder.exitCode !== null) throw new Error(`(s1) the streams did not open: ${out}`);
    await Bun.sleep(50);
  }
  await waitForQuiet([srv.proc.pid]);
  const b = await runBookingClient(srv, org, token, DURATION, firstSlot);
  assertAlive(srv, "s1");
  holder.kill("SIGTERM");
  await holder.exited;
  await pump;
  children.delete(holder);
  const line = out.split("\n").find((l) => l.startsWith("STREAMS_JSON "));
  if (!line) throw new Error(`(s1) the stream holder reported nothing: ${out}`);
  const st = JSON.parse(line.slice("STREAMS_JSON ".length)) as StreamsResult;
  const bad = st.foreign + st.duplicates + st.missed;
  const rate = b.bookings / (b.duration_us / 1e6);
  const base = bookingRow(
    "s1",
    `(s1) booking pipeline with ${fmtInt(st.connected)} event streams open over ${orgs.length} orgs: ${(rate / d.rate).toFixed(2)} of (d); ${fmtInt(st.events_per_org[org.id] ?? 0)} events reached each of ${STREAMS_PER_ORG} streams, p50 / p99 ${st.delay_ms.p50} / ${st.delay_ms.p99} ms after they occurred`,
    b,
  );
  ctx.record({
    ...base,
    errors: base.errors + bad,
    errorDetail: `${base.errorDetail}; streams: ${st.foreign} events of another org, ${st.duplicates} duplicates, ${st.missed} missed`,
    streams: { ...st, rate_of_d: rate / d.rate },
  });
  return { created: b.bookings + b.bad_bodies, nextSlot: b.next_slot };
}

/** Under the table: the per-call split of (d) and (d1), and the double-booking check. */
function notes({ measured: b, solo, check }: BookingRun): string[] {
  const split = (x: BookingResult) =>
    `search ${fmtLat(x.phases.search.p50_us)} / ${fmtLat(x.phases.search.p99_us)}, appointment types ${fmtLat(x.phases.types.p50_us)} / ${fmtLat(x.phases.types.p99_us)}, create ${fmtLat(x.phases.create.p50_us)} / ${fmtLat(x.phases.create.p99_us)}`;
  return [
    `(d) one booking = 3 HTTP requests (${fmtInt((3 * b.bookings) / (b.duration_us / 1e6))} req/s at ${BOOKING_CONCURRENCY} loops); per call p50 / p99: ${split(b)}. From one loop (d1): ${split(solo)}.`,
    `No double booking: ${check.ok ? "VERIFIED" : "FAILED"}. ${fmtInt(check.in_database)} live appointments read back from the org database (${fmtInt(check.created)} created by the run), ${check.overlaps.length} overlapping pairs across ${check.providers_checked} providers and ${check.operatories_checked} operatories; ${b.conflicts + solo.conflicts} unexpected 409s in the measured runs; race probe (${check.probe.requests} concurrent bookings of overlapping windows on one operatory): ${check.probe.created} created, ${check.probe.conflicts} × 409 booking_conflict${check.probe.other.length ? `, other answers: ${check.probe.other.join("; ")}` : ""}.`,
    ...check.overlaps.map((o) => `  - overlap: ${o}`),
  ];
}

/** latest.json's `booking`. */
function section(run: BookingRun) {
  return {
    requests_per_booking: 3,
    warmup_bookings: run.warmup?.bookings ?? 0,
    measured_bookings: run.measured.bookings,
    one_loop_bookings: run.solo.bookings,
    unexpected_conflicts: run.measured.conflicts + run.solo.conflicts,
    no_double_booking: run.check.ok,
    verification: run.check,
  };
}
