// The booking pipeline as the runner drives it (rows d, d1, s1 on the Cusp
// server, n1, n2 on the cluster): runs of its load generator
// (bench/clients/booking.ts) and the checks that nothing was double booked.

import { Database } from "bun:sqlite";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { sample } from "./patients";
import { api } from "./runner/api";
import { reportLine, runLoad } from "./runner/load";
import { DAY0, DAY_START_MINUTE, type PatientsOrg, SLOT_MINUTES, SLOTS_PER_DAY } from "./runner/patients-org";
import { type BookingPhases, type Latencies, type Row, loadFigures } from "./runner/row";
import { scratchDir } from "./runner/scratch";
import type { Server } from "./runner/servers";
import { BENCH, BOOKING_CONCURRENCY, SEARCH_PAGE_SIZE } from "./runner/settings";
import type { Cores } from "./runner/cpu";

export type BookingResult = Latencies & {
  bookings: number;
  duration_us: number;
  status_errors: number;
  status_error_detail: Record<string, number>;
  socket_errors: number;
  conflicts: number;
  bad_bodies: number;
  next_slot: number;
  samples: string[];
  phases: BookingPhases;
};

/** The booking client for `seconds`, its loops taking the calendar's slots from `firstSlot` on. */
export async function runBookingClient(server: Server, org: PatientsOrg, token: string, seconds: number, firstSlot: number, concurrency = BOOKING_CONCURRENCY) {
  const cfgFile = join(scratchDir(), `booking-${firstSlot}.json`);
  writeFileSync(
    cfgFile,
    JSON.stringify({
      base: server.base,
      token,
      org: org.id,
      location_uuid: org.location.id,
      type_code: org.typeCode,
      chairs: org.chairs,
      terms: org.terms,
      concurrency,
      seconds,
      first_slot: firstSlot,
      day0: DAY0,
      slot_minutes: SLOT_MINUTES,
      day_start_minute: DAY_START_MINUTE,
      slots_per_day: SLOTS_PER_DAY,
      page_size: SEARCH_PAGE_SIZE,
    }),
  );
  const run = await runLoad([process.execPath, "run", join(BENCH, "clients", "booking.ts"), cfgFile], server.pids ?? server.proc.pid);
  return { ...reportLine<BookingResult>(run, "BOOKING_JSON", "the booking client"), cores: run.cores };
}

/** A booking-pipeline row from a run of the booking client (rows d, d1, s1, n1, n2). */
export function bookingRow(id: string, scenario: string, b: BookingResult & { cores: Cores }): Row {
  return {
    id,
    scenario,
    unit: "bookings/s",
    ...loadFigures(b.bookings, b),
    errors: b.status_errors + b.socket_errors + b.bad_bodies,
    errorDetail: `${b.status_errors} non-2xx (${b.conflicts} of them 409), ${b.socket_errors} socket errors, ${b.bad_bodies} unexpected 201 bodies${b.samples.length ? `; e.g. ${b.samples[0]}` : ""}`,
    cores: b.cores,
    phases: b.phases,
  };
}

export type BookingCheck = {
  created: number;
  in_database: number;
  providers_checked: number;
  operatories_checked: number;
  overlaps: string[];
  probe: { requests: number; created: number; conflicts: number; other: string[] };
  ok: boolean;
};

/**
 * A deliberate race after the measured runs: 20 concurrent bookings on `date`
 * (before DAY0: no measured booking uses it) of windows that all overlap
 * (09:00-09:30 and 09:15-09:45) on one operatory, half of them also on one
 * provider. Exactly one may win; the rest must be 409 booking_conflict.
 */
export async function doubleBookingProbe(server: Server, org: PatientsOrg, token: string, date = "2030-12-30"): Promise<BookingCheck["probe"]> {
  const P = `${server.base}/api/v1/${org.id}`;
  const patients = sample(org.patients, 20, 99);
  const type = await typeUuid(server, org, token);
  const answers = await Promise.all(
    patients.map(async (p, i) => {
      const start = i % 2 ? `${date}T09:15:00` : `${date}T09:00:00`;
      const end = i % 2 ? `${date}T09:45:00` : `${date}T09:30:00`;
      const r = await fetch(`${P}/appointments`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({
          patient_uuid: p.id,
          appointment_type_uuid: type,
          location_uuid: org.location.id,
          provider_uuid: org.chairs[i % 2]!.provider_uuid,
          operatory_uuid: org.chairs[0]!.operatory_uuid,
          scheduled_start: start,
          scheduled_end: end,
        }),
      });
      return { status: r.status, body: await r.text() };
    }),
  );
  const created = answers.filter((a) => a.status === 201).length;
  const conflicts = answers.filter((a) => a.status === 409 && a.body.includes("booking_conflict")).length;
  const other = answers
    .filter((a) => a.status !== 201 && !(a.status === 409 && a.body.includes("booking_conflict")))
    .map((a) => `${a.status} ${a.body.slice(0, 200)}`);
  return { requests: answers.length, created, conflicts, other };
}

let cachedTypeUuid: string | undefined;
async function typeUuid(server: Server, org: PatientsOrg, token: string): Promise<string> {
  if (!cachedTypeUuid) {
    const page = await api(server.base, "GET", `/api/v1/${org.id}/appointment-types?is_active=true`, undefined, token);
    cachedTypeUuid = page.items.find((t: { code: string }) => t.code === org.typeCode).uuid as string;
  }
  return cachedTypeUuid;
}

/**
 * Reads every appointment of the booking chairs back from the org database: no
 * two live ones of a provider or an operatory may overlap, and there are as many
 * as the run created. Only the chairs' appointments: row (u1) writes 7,500
 * appointments of its own provider straight into the same file (bench data,
 * overlapping by design, never booked through the API).
 */
export function verifyNoDoubleBooking(dbFile: string, chairs: PatientsOrg["chairs"], created: number, probe: BookingCheck["probe"]): BookingCheck {
  const db = new Database(dbFile, { readonly: true });
  try {
    const chairProviders = chairs.map((c) => c.provider_uuid);
    const chairOperatories = chairs.map((c) => c.operatory_uuid);
    const live = db
      .query(
        `SELECT id, provider_id, operatory_id, start_utc, end_utc FROM appointments WHERE status != 'cancelled' AND deleted_at IS NULL
           AND (provider_id IN (${chairProviders.map(() => "?").join(",")}) OR operatory_id IN (${chairOperatories.map(() => "?").join(",")}))`,
      )
      .all(...chairProviders, ...chairOperatories) as { id: string; provider_id: string; operatory_id: string | null; start_utc: string; end_utc: string }[];
    const overlaps: string[] = [];
    const check = (key: "provider_id" | "operatory_id") => {
      const groups = new Map<string, typeof live>();
      for (const a of live) {
        const k = a[key];
        if (!k) continue;
        let g = groups.get(k);
        if (!g) groups.set(k, (g = []));
        g.push(a);
      }
      for (const [k, g] of groups) {
        g.sort((x, y) => (x.start_utc < y.start_utc ? -1 : x.start_utc > y.start_utc ? 1 : 0));
        let latest = g[0]!;
        for (const a of g.slice(1)) {
          if (a.start_utc < latest.end_utc && overlaps.length < 10)
            overlaps.push(`${key} ${k}: ${latest.id} [${latest.start_utc}, ${latest.end_utc}) and ${a.id} [${a.start_utc}, ${a.end_utc})`);
          if (a.end_utc > latest.end_utc) latest = a;
        }
      }
      return groups.size;
    };
    const providers = check("provider_id");
    const operatories = check("operatory_id");
    const expected = created + probe.created;
    const ok = overlaps.length === 0 && live.length === expected && probe.created === 1 && probe.conflicts === probe.requests - 1;
    return { created: expected, in_database: live.length, providers_checked: providers, operatories_checked: operatories, overlaps, probe, ok };
  } finally {
    db.close();
  }
}
