// `./node_modules/.bin/bun run bench/availability.ts`: latency of a 14-day
// availability search (GET {P}/schedule/availability) for a location with 10
// providers and 12 operatories, through the whole app (app.handle: guard,
// validation, the org database, response validation), next to a simple GET
// ({P}/locations/{id}) measured in the same run, as a ratio.
//
// Data: providers work Monday-Friday 08:00-12:00 and 13:00-17:00 (8 in an
// operatory of their own, 2 in whichever chair is free), about half of their
// time booked (30 and 60 minute appointments), a daily staff huddle blocking
// the whole location, operatory maintenance blockouts, a vacation day and an
// extended-hours override. Settings: BENCH_REQUESTS (default 50), BENCH_WARMUP (10).

import { cpus, loadavg } from "node:os";
import { startTestApp } from "@tests/helpers";
import {
  createOperatory,
  createPatient,
  createProvider,
  createType,
  insertAppointment,
  insertDefinition,
} from "@tests/domains/scheduling/provider-schedules/fixtures";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 50);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 10);
const TZ = "America/New_York";
const FROM = "2026-06-01"; // a Monday
const TO = "2026-06-14";

const t = await startTestApp();
try {
  const token = await t.adminToken();
  const orgId = (await t.createOrg()).id;
  const P = `/api/v1/${orgId}`;
  const must = async (method: string, path: string, body: unknown) => {
    const r = await t.request(method, path, { token, body });
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
    return r.body;
  };

  const location = await must("POST", `${P}/locations`, { name: "Bench Dental", timezone: TZ });
  const ops = [];
  for (let i = 0; i < 12; i++) ops.push(await createOperatory(t, orgId, location.id, { name: `Op ${i + 1}`, item_order: i }));
  const providers = [];
  for (let i = 0; i < 10; i++) providers.push(await createProvider(t, orgId, { abbreviation: `P${i}`, first_name: `Pro${i}`, last_name: `Vider${i}` }));
  const patient = await createPatient(t, orgId);
  const exam = await createType(t, orgId, { code: "EXAM", name: "Exam", duration_minutes: 60 });
  const short = await createType(t, orgId, { code: "CHK", name: "Check", duration_minutes: 30 });
  const huddle = await insertDefinition(t, orgId, "blockout_types", "Huddle");

  for (const [i, p] of providers.entries()) {
    for (let weekday = 1; weekday <= 5; weekday++) {
      for (const [start_time, end_time] of [
        ["08:00", "12:00"],
        ["13:00", "17:00"],
      ]) {
        await must("POST", `${P}/schedule/provider-schedules`, {
          provider_uuid: p.id,
          location_uuid: location.id,
          operatory_uuid: i < 8 ? ops[i]!.id : null,
          weekday,
          start_time,
          end_time,
        });
      }
    }
  }
  await must("POST", `${P}/schedule/overrides`, {
    provider_uuid: providers[0]!.id,
    location_uuid: location.id,
    override_date: "2026-06-03",
    is_unavailable: true,
    override_reason: "vacation",
  });
  await must("POST", `${P}/schedule/overrides`, {
    provider_uuid: providers[1]!.id,
    location_uuid: location.id,
    override_date: "2026-06-06",
    start_time: "09:00",
    end_time: "13:00",
    override_reason: "extended_hours",
  });

  let appointments = 0;
  const days: string[] = [];
  for (let d = Temporal.PlainDate.from(FROM); Temporal.PlainDate.compare(d, Temporal.PlainDate.from(TO)) <= 0; d = d.add({ days: 1 })) days.push(d.toString());
  for (const day of days) {
    await must("POST", `${P}/schedule/blockouts`, { location_uuid: location.id, blockout_type_uuid: huddle.id, start: `${day}T07:45`, end: `${day}T08:00` });
    await must("POST", `${P}/schedule/blockouts`, {
      location_uuid: location.id,
      operatory_uuid: ops[days.indexOf(day) % 12]!.id,
      blockout_type_uuid: huddle.id,
      start: `${day}T15:00`,
      end: `${day}T16:00`,
    });
    if (Temporal.PlainDate.from(day).dayOfWeek > 5) continue;
    for (const [i, p] of providers.entries()) {
      // every other hour booked, alternating 60 and 30 minute visits
      for (const hour of i % 2 ? [8, 10, 13, 15] : [9, 11, 14, 16]) {
        const long = (hour + i) % 2 === 0;
        const op = i < 8 ? ops[i]! : ops[8 + (hour % 4)]!;
        await insertAppointment(t, orgId, {
          timeZone: TZ,
          location_id: location.id,
          provider_id: p.id,
          patient_id: patient.id,
          appointment_type_id: long ? exam.id : short.id,
          operatory_id: op.id,
          start: `${day}T${String(hour).padStart(2, "0")}:00`,
          end: `${day}T${String(hour).padStart(2, "0")}:${long ? "59" : "30"}`,
        });
        appointments++;
      }
    }
  }

  const searchPath = `${P}/schedule/availability?location_uuid=${location.id}&appointment_type_uuid=${exam.id}&date_from=${FROM}&date_to=${TO}`;
  const basePath = `${P}/locations/${location.id}`;
  const first = await t.request("GET", searchPath, { token });
  if (first.status !== 200) throw new Error(`availability: ${first.status} ${first.text}`);

  async function measure(path: string): Promise<number[]> {
    for (let i = 0; i < WARMUP; i++) await t.request("GET", path, { token });
    const out: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const t0 = Bun.nanoseconds();
      const r = await t.request("GET", path, { token });
      out.push((Bun.nanoseconds() - t0) / 1e6);
      if (r.status !== 200) throw new Error(`${path}: ${r.status}`);
    }
    return out.sort((a, b) => a - b);
  }
  const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!;
  const base = await measure(basePath);
  const search = await measure(searchPath);
  const row = (name: string, xs: number[]) =>
    `${name.padEnd(44)} median ${pct(xs, 50).toFixed(2).padStart(7)} ms   p95 ${pct(xs, 95).toFixed(2).padStart(7)} ms`;
  console.log(`availability benchmark: ${REQUESTS} requests each through app.handle (warm-up ${WARMUP}), ${TZ}`);
  console.log(`data: 10 providers, 12 operatories, ${days.length} days, ${appointments} appointments, ${days.length * 2} blockouts, 2 overrides`);
  console.log(row("baseline GET {P}/locations/{id}", base));
  console.log(row("GET {P}/schedule/availability (14 days)", search));
  console.log(`slots returned: ${first.body.slots.length}; response ${(first.text.length / 1024).toFixed(0)} KiB`);
  console.log(`ratio (availability / baseline): median ${(pct(search, 50) / pct(base, 50)).toFixed(1)}x, p95 ${(pct(search, 95) / pct(base, 95)).toFixed(1)}x`);
  console.log(
    `machine: ${cpus().length} cores, load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")} (other processes inflate both rows)`,
  );
  console.log(`target: under 100 ms -> ${pct(search, 95) < 100 ? "met" : "NOT met"} (p95)`);
} finally {
  await t.close();
}
