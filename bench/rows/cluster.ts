// (n1) and (n2): `npm run start:cluster` on the bench's data directory with
// one, then two API processes (and a worker process, PostgreSQL and Redis in
// both: bench/cluster.ts), the booking pipeline as in (d) continuing its
// slots; then the race probe against the two processes and the double-booking
// check over every booking of the run. Skipped, saying why, without
// PostgreSQL or Redis.

import { join } from "node:path";
import { type BookingCheck, bookingRow, doubleBookingProbe, runBookingClient, verifyNoDoubleBooking } from "@bench/booking";
import { clusterServicesDown, startCluster } from "@bench/cluster";
import { waitForQuiet } from "@bench/runner/cpu";
import { cuspEnv } from "@bench/runner/cusp";
import type { RowFamily } from "@bench/runner/family";
import { fmtInt } from "@bench/runner/format";
import type { Row } from "@bench/runner/row";
import { scratchDir } from "@bench/runner/scratch";
import { type Server, freePort } from "@bench/runner/servers";
import { DURATION, WARMUP } from "@bench/runner/settings";

export const cluster: RowFamily = {
  ids: ["n1", "n2"],
  together: true,
  stage: "after-cusp",
  patientsOrg: { patients: true, chairs: true },
  async run(ctx) {
    const { dataDir, token } = ctx;
    const org = ctx.patientsOrg();
    const down = await clusterServicesDown();
    if (down) {
      console.log(`(n1), (n2) skipped: ${down}`);
      return;
    }
    let { nextSlot, created } = org.calendar;
    let probe: BookingCheck["probe"] | undefined;
    let n2: Row | undefined;
    for (const instances of [1, 2]) {
      const id = instances === 1 ? "n1" : "n2";
      console.log(
        `(${id}) booking pipeline, ${instances} API process${instances > 1 ? "es" : ""} (npm run start:cluster: PostgreSQL queue, worker process, Redis)`,
      );
      const port = await freePort();
      const cluster = await startCluster({ instances, port, dataDir, env: cuspEnv(dataDir), log: join(scratchDir(), `cluster-${instances}.log`) });
      const server: Server = { name: `cluster-${instances}`, port, base: cluster.base, proc: cluster.proc, log: "", pids: cluster.pids, stop: cluster.stop };
      try {
        const warm = WARMUP > 0 ? await runBookingClient(server, org, token, WARMUP, nextSlot) : undefined;
        await waitForQuiet(cluster.pids);
        const b = await runBookingClient(server, org, token, DURATION, warm?.next_slot ?? nextSlot);
        nextSlot = b.next_slot;
        created += (warm ? warm.bookings + warm.bad_bodies : 0) + b.bookings + b.bad_bodies;
        const row = ctx.record(
          bookingRow(
            id,
            `(${id}) booking pipeline, ${instances} API process${instances > 1 ? "es" : ""} on one port (production layout: PostgreSQL queue, Redis)`,
            b,
          ),
        );
        if (instances === 2) {
          n2 = row;
          probe = await doubleBookingProbe(server, org, token, "2030-12-29");
        }
      } finally {
        await cluster.stop();
      }
    }
    const check = verifyNoDoubleBooking(org.dbFile, org.chairs, created, probe!);
    console.log(
      `  double booking check over every booking of the run: ${check.ok ? "OK" : "FAILED"}: ${fmtInt(check.in_database)} live appointments (${fmtInt(check.created)} created), ${check.overlaps.length} overlaps; race probe across the two processes: ${probe!.created} of ${probe!.requests} won, ${probe!.conflicts} got 409`,
    );
    for (const overlap of check.overlaps.slice(0, 5)) console.log(`    overlap: ${overlap}`);
    if (!check.ok && n2) {
      n2.errors += 1;
      n2.errorDetail += `; DOUBLE BOOKING CHECK FAILED: ${check.overlaps.length} overlaps, ${check.in_database} live of ${check.created} created`;
    }
  },
};
