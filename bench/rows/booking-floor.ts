// (d0) the floor of (d): the same booking client (bench/clients/booking.ts),
// search → appointment types → `POST {P}/appointments`, against
// bench/servers/floor.ts on the patients org's file, continuing (s1)'s slots
// with the Cusp server idle. Before it is measured, the floor's answers are
// checked: the types list and some searches equal Cusp's, a slot Cusp just
// booked is refused (409: the same overlap queries), and a booking of the
// next slot answers and audits as Cusp's did. Afterwards the double-booking
// check runs again over every booking, the floor's included.

import { type BookingCheck, bookingRow, runBookingClient, verifyNoDoubleBooking } from "@bench/booking";
import { sample } from "@bench/patients";
import { api } from "@bench/runner/api";
import { waitForQuiet } from "@bench/runner/cpu";
import type { CuspContext } from "@bench/runner/family";
import { assertSameReads, assertSameWrite, auditRowOf, startFloor } from "@bench/runner/floor";
import { fmtInt } from "@bench/runner/format";
import type { Server } from "@bench/runner/servers";
import { DURATION, WARMUP } from "@bench/runner/settings";
import { checkedSearches } from "./patient-reads";

/** A day before the calendar's first (DAY0) that neither the race probe nor a measured booking uses. */
const CHECK_DAY = "2030-12-27";

/**
 * (d0), from slot `firstSlot`; `check` is (d)'s double-booking check. Answers
 * the calendar after it (where (n1), (n2) continue, and the bookings made).
 */
export async function floorBookingRow(ctx: CuspContext, firstSlot: number, check: BookingCheck): Promise<{ nextSlot: number; created: number }> {
  const { server: srv, token, auth } = ctx;
  const org = ctx.patientsOrg();
  const P = `/api/v1/${org.id}`;
  const types = await api(srv.base, "GET", `${P}/appointment-types?is_active=true`, undefined, token);
  const booking = (start: string, end: string) => ({
    patient_uuid: sample(org.patients, 1, 5)[0]!.id,
    appointment_type_uuid: types.items.find((t: { code: string }) => t.code === org.typeCode).uuid,
    location_uuid: org.location.id,
    provider_uuid: org.chairs[0]!.provider_uuid,
    operatory_uuid: org.chairs[0]!.operatory_uuid,
    scheduled_start: `${CHECK_DAY}T${start}`,
    scheduled_end: `${CHECK_DAY}T${end}`,
  });
  const viaCusp = await api(srv.base, "POST", `${P}/appointments`, booking("09:00:00", "09:30:00"), token);
  const { actor_id, actor_type, actor_display_name } = auditRowOf(org.dbFile, viaCusp.id);
  const floor = await startFloor(ctx.dataDir, org.id, "booking", { actor_id, actor_type, actor_display_name });
  try {
    console.log("(d0) the floor of (d): the same booking pipeline from a bare Bun.serve");
    await assertSameReads("d0", srv, floor, [`${P}/appointment-types?is_active=true`, ...checkedSearches(ctx, P).slice(0, 10)], auth);
    await assertSameBooking(ctx, floor, booking, viaCusp);
    const warm = WARMUP > 0 ? await runBookingClient(floor, org, token, WARMUP, firstSlot) : undefined;
    await waitForQuiet([floor.proc.pid]);
    const b = await runBookingClient(floor, org, token, DURATION, warm?.next_slot ?? firstSlot);
    const row = ctx.record(bookingRow("d0", "(d0) floor of (d): the same three calls' SQL and JSON from a bare `Bun.serve`", b));
    row.floorOf = "d";
    // (d)'s check counted its own race probe: every booking since is added to the bookings it counted
    const made = 2 + (warm ? warm.bookings + warm.bad_bodies : 0) + b.bookings + b.bad_bodies;
    const again = verifyNoDoubleBooking(org.dbFile, org.chairs, check.created - check.probe.created + made, check.probe);
    console.log(
      `  double booking check after (d0): ${again.ok ? "OK" : "FAILED"}: ${fmtInt(again.in_database)} live appointments (${fmtInt(again.created)} created), ${again.overlaps.length} overlaps`,
    );
    if (!again.ok) {
      row.errors += 1;
      row.errorDetail += `; DOUBLE BOOKING CHECK FAILED: ${again.overlaps.length} overlaps, ${again.in_database} live of ${again.created} created`;
    }
    return { nextSlot: b.next_slot, created: again.created };
  } finally {
    await floor.stop();
  }
}

/** The slot Cusp booked (`viaCusp`, 09:00) is refused by the floor; the next hour is booked as Cusp booked its own. */
async function assertSameBooking(
  ctx: CuspContext,
  floor: Server,
  booking: (start: string, end: string) => Record<string, string>,
  viaCusp: Record<string, unknown>,
) {
  const org = ctx.patientsOrg();
  const url = `${floor.base}/api/v1/${org.id}/appointments`;
  const post = (body: unknown) => fetch(url, { method: "POST", headers: { ...ctx.auth, "content-type": "application/json" }, body: JSON.stringify(body) });
  const taken = await post(booking("09:00:00", "09:30:00"));
  if (taken.status !== 409) throw new Error(`(d0) the floor booked a slot Cusp had booked: ${taken.status} ${await taken.text()}`);
  const made = await post(booking("10:00:00", "10:30:00"));
  if (made.status !== 201) throw new Error(`(d0) the floor's booking failed: ${made.status} ${await made.text()}`);
  const viaFloor = (await made.json()) as Record<string, unknown>;
  // the wall clock and its UTC instant an hour after Cusp's
  const utc = (id: unknown) => Date.parse(JSON.parse(auditRowOf(org.dbFile, id as string).after!).start_utc);
  if (viaFloor.scheduled_start !== `${CHECK_DAY}T10:00:00` || utc(viaFloor.id) - utc(viaCusp.id) !== 3_600_000)
    throw new Error(`(d0) the floor booked ${viaFloor.scheduled_start} at another instant than an hour after Cusp's booking`);
  assertSameWrite("d0", ctx.dataDir, org.id, viaCusp, viaFloor, ["scheduled_start", "scheduled_end", "start_utc", "end_utc"]);
}
