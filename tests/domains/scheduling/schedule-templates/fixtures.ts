// Schedule-template tests' world: org A with a clinic (New York, two
// providers, two operatories), a second clinic with its own operatory, a
// blockout type, a definition of another category and an appointment type;
// org B with its own clinic (for references of another org).
import { twoOrgApp, type TestResponse } from "@tests/helpers";
import { createLocation, createOperatory, createType, insertDefinition, scheduleSetup } from "@tests/domains/scheduling/provider-schedules/fixtures";

export const MISSING = "01970000-0000-7000-8000-0000000005c1";

export async function templatesWorld(options: { withQueue?: boolean; env?: Record<string, string> } = {}) {
  const w = await twoOrgApp(
    {
      reader: ["schedule.read"],
      writer: ["schedule.read", "schedule.write"],
      memberOfB: { org: "B", keys: ["schedule.read", "schedule.write"] },
    },
    { events: true, withQueue: options.withQueue, env: options.env },
  );
  const { t, admin, orgA, orgB } = w;
  const s = await scheduleSetup(t, orgA);
  const uptown = await createLocation(t, orgA, "America/Chicago", "Uptown");
  const uptownOp = await createOperatory(t, orgA, uptown.id, { name: "Up 1" });
  const newPatients = await insertDefinition(t, orgA, "blockout_types", "New patient exams");
  const holiday = await insertDefinition(t, orgA, "holidays", "Labor Day", "2026-09-07");
  const exam = await createType(t, orgA, { code: "EX60", name: "Exam", duration_minutes: 60 });
  const b = await scheduleSetup(t, orgB);
  const bType = await insertDefinition(t, orgB, "blockout_types", "Lunch");

  const S = (org = orgA) => `/api/v1/${org}/schedule`;
  const call = (method: string, path: string, body?: unknown, token = admin) => t.request(method, path, { token, body });
  const ok = async (r: Promise<TestResponse>, status = 201) => {
    const res = await r;
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status} ${res.text}`);
    return res.body;
  };
  /** A working block of Ada at the clinic, with overrides. */
  const block = (v: Record<string, unknown> = {}) => ({
    weekday: 1,
    start_time: "08:00",
    end_time: "12:00",
    provider_uuid: s.provider.id,
    location_uuid: s.location.id,
    operatory_uuid: s.operatory.id,
    ...v,
  });
  /** A week: Ada Mon-Fri 08:00-12:00 and 13:00-17:00 in Op 1, her Monday 08:00-09:00 reserved for new patients; Grace Tue/Thu 09:00-15:00 in Op 2. */
  const week = () => [
    ...[1, 2, 3, 4, 5].flatMap((d) => [block({ weekday: d }), block({ weekday: d, start_time: "13:00", end_time: "17:00" })]),
    block({ weekday: 1, start_time: "08:00", end_time: "09:00", blockout_type_uuid: newPatients.id }),
    ...[2, 4].map((d) => block({ weekday: d, start_time: "09:00", end_time: "15:00", provider_uuid: s.provider2.id, operatory_uuid: s.operatory2.id })),
  ];
  let n = 0;
  const createTemplate = (body: Record<string, unknown> = {}) => ok(call("POST", `${S()}/templates`, { name: `Week ${n++}`, blocks: week(), ...body }));
  const apply = (id: string, body: Record<string, unknown>, status = 201) => ok(call("POST", `${S()}/templates/${id}/apply`, body), status);
  /** Every available start (HH:MM) of `date` for a 60-minute exam, per provider id. */
  const slotsOn = async (date: string, to = date) => {
    const qs = new URLSearchParams({ location_uuid: s.location.id, appointment_type_uuid: exam.id, date_from: date, date_to: to });
    const r = await ok(call("GET", `${S()}/availability?${qs}`), 200);
    return r.slots as { start: string; end: string; provider_uuid: string; operatory_uuid: string | null }[];
  };
  return { ...w, s, uptown, uptownOp, newPatients, holiday, exam, b, bType, S, call, ok, block, week, createTemplate, apply, slotsOn };
}
export type TemplatesWorld = Awaited<ReturnType<typeof templatesWorld>>;
