// Row (d) of `bun run bench`: the four-call booking pipeline (spec.md, "Booking
// pipeline"), driven by N concurrent loops in this separate process:
//
//   1. GET  {P}/patients?search=<name prefixes>&page_size=10   take items[0].uuid
//   2. GET  {P}/appointment-types?is_active=true               take the type by code
//   3. POST {P}/appointments                                   one free slot per booking
//   4. read the 201: the full appointment, status "scheduled"
//
// A booking counts when all four succeed; its latency runs from the first
// request to the parsed 201. Every booking gets a slot no other booking of the
// run uses (a global counter: chair = k mod chairs, then 30-minute slots 08:00 to
// 17:00, day after day, in the location's wall clock), so a 409 here can only be
// a false conflict; bench/booking.ts checks afterwards, in the database, that no two
// bookings of one provider or operatory overlap.
//
// The calls go through the typed client (clients/typescript) with a fixed token:
// openapi-fetch and no middleware, so the client adds no request copies.
//
// Usage: bun run bench/clients/booking.ts <config.json>; prints one line
// `BOOKING_JSON {...}` (latencies in microseconds).
import { createCuspClient } from "@clients/typescript";

type Chair = { provider_uuid: string; operatory_uuid: string };
type Config = {
  base: string;
  token: string;
  org: string;
  location_uuid: string;
  type_code: string;
  chairs: Chair[];
  terms: string[];
  concurrency: number;
  seconds: number;
  first_slot: number;
  day0: string;
  slot_minutes: number;
  day_start_minute: number;
  slots_per_day: number;
  page_size: number;
};

const cfg = (await Bun.file(process.argv[2]!).json()) as Config;
const cusp = createCuspClient({ baseUrl: cfg.base, token: cfg.token });
const org = { org_id: cfg.org };
const day0 = Date.parse(`${cfg.day0}T00:00:00Z`);

const pad = (n: number) => String(n).padStart(2, "0");
/** Slot k as a local wall-clock window of the location ("YYYY-MM-DDTHH:MM:SS"). */
function slot(k: number): { chair: Chair; start: string; end: string } {
  const chair = cfg.chairs[k % cfg.chairs.length]!;
  const n = Math.floor(k / cfg.chairs.length);
  const day = new Date(day0 + Math.floor(n / cfg.slots_per_day) * 86_400_000);
  const date = `${day.getUTCFullYear()}-${pad(day.getUTCMonth() + 1)}-${pad(day.getUTCDate())}`;
  const m0 = cfg.day_start_minute + (n % cfg.slots_per_day) * cfg.slot_minutes;
  const m1 = m0 + cfg.slot_minutes;
  const hm = (m: number) => `${pad(Math.floor(m / 60))}:${pad(m % 60)}:00`;
  return { chair, start: `${date}T${hm(m0)}`, end: `${date}T${hm(m1)}` };
}

const total: number[] = [];
const phases = { search: [] as number[], types: [] as number[], create: [] as number[] };
const statusErrors: Record<string, number> = {};
const samples: string[] = [];
let socketErrors = 0;
let conflicts = 0;
let badBodies = 0;
let nextSlot = cfg.first_slot;
let termPos = Math.floor(Math.random() * cfg.terms.length);

function fail(what: string, status: number, body: unknown) {
  const key = `${what} ${status}`;
  statusErrors[key] = (statusErrors[key] ?? 0) + 1;
  if (samples.length < 5) samples.push(`${key}: ${(typeof body === "string" ? body : JSON.stringify(body)).slice(0, 300)}`);
}

async function bookOnce(): Promise<void> {
  const k = nextSlot++;
  const term = cfg.terms[termPos++ % cfg.terms.length]!;
  const t0 = performance.now();

  const r1 = await cusp.GET("/api/v1/{org_id}/patients", { params: { path: org, query: { search: term, page_size: cfg.page_size } } });
  if (r1.response.status !== 200 || !r1.data) return fail("search", r1.response.status, r1.error);
  const patient = r1.data.items[0];
  if (!patient) return fail("search-empty", 200, term);
  const t1 = performance.now();

  const r2 = await cusp.GET("/api/v1/{org_id}/appointment-types", { params: { path: org, query: { is_active: "true" } } });
  if (r2.response.status !== 200 || !r2.data) return fail("types", r2.response.status, r2.error);
  const type = r2.data.items.find((t) => t.code === cfg.type_code && t.is_active);
  if (!type) return fail("types-missing", 200, r2.data);
  const t2 = performance.now();

  const s = slot(k);
  const r3 = await cusp.POST("/api/v1/{org_id}/appointments", {
    params: { path: org },
    body: {
      patient_uuid: patient.uuid,
      appointment_type_uuid: type.uuid,
      location_uuid: cfg.location_uuid,
      provider_uuid: s.chair.provider_uuid,
      operatory_uuid: s.chair.operatory_uuid,
      scheduled_start: s.start,
      scheduled_end: s.end,
    },
  });
  if (r3.response.status === 409) conflicts++;
  if (r3.response.status !== 201 || !r3.data) return fail("create", r3.response.status, r3.error);
  // typed, but checked as the service sent it: a missing field is a bad body, not a crash
  const appt = r3.data as Partial<typeof r3.data>;
  const t3 = performance.now();
  if (!appt.uuid || appt.status !== "scheduled" || appt.patient?.uuid !== patient.uuid || appt.scheduled_start !== s.start) {
    badBodies++;
    if (samples.length < 5) samples.push(`create 201 with an unexpected body: ${JSON.stringify(appt).slice(0, 300)}`);
    return;
  }
  total.push((t3 - t0) * 1000);
  phases.search.push((t1 - t0) * 1000);
  phases.types.push((t2 - t1) * 1000);
  phases.create.push((t3 - t2) * 1000);
}

const started = performance.now();
const deadline = started + cfg.seconds * 1000;
let lastDone = started;
async function loop() {
  while (performance.now() < deadline) {
    try {
      await bookOnce();
    } catch (err) {
      socketErrors++;
      if (samples.length < 5) samples.push(`request failed: ${(err as Error).message}`);
    }
    lastDone = performance.now();
  }
}
await Promise.all(Array.from({ length: cfg.concurrency }, loop));

const pct = (xs: number[], p: number) => {
  if (!xs.length) return 0;
  const sorted = Float64Array.from(xs).sort();
  return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!);
};
const stats = (xs: number[]) => ({
  p50_us: pct(xs, 50),
  p90_us: pct(xs, 90),
  p99_us: pct(xs, 99),
  max_us: pct(xs, 100),
  mean_us: xs.length ? Math.round(xs.reduce((a, b) => a + b, 0) / xs.length) : 0,
});
const errors = Object.values(statusErrors).reduce((a, b) => a + b, 0);
console.log(
  "BOOKING_JSON " +
    JSON.stringify({
      bookings: total.length,
      duration_us: Math.round((lastDone - started) * 1000),
      ...stats(total),
      phases: { search: stats(phases.search), types: stats(phases.types), create: stats(phases.create) },
      status_errors: errors,
      status_error_detail: statusErrors,
      socket_errors: socketErrors,
      conflicts,
      bad_bodies: badBodies,
      next_slot: nextSlot,
      samples,
    }),
);
