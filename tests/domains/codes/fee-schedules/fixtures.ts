import { count, eq } from "drizzle-orm";
import { feeSchedules, fees } from "@db/tenant/fee-schedules";
import { auditEntries } from "@db/tenant/audit";
import { all, get } from "@/platform/db/work";
import { orgDb } from "@tests/domains/patients/record/fixtures";
import { twoOrgApp, unique, type MemberSpec, type TwoOrgOptions } from "@tests/helpers";

export { orgDb };
export const READ = "codes.read";
export const WRITE = "codes.write";
export const MISSING = "0190a1b2-0000-7000-8000-0000000000ff";

type Res = { status: number; text: string; body: any; headers: Headers };

/** An app with two orgs and helpers for fee schedules, fees and the records that name them. */
export async function feeWorld<const M extends Record<string, MemberSpec> = {}>(members: M = {} as M, options: TwoOrgOptions = {}) {
  const w = await twoOrgApp(members, { events: true, ...options });
  const { t, admin, orgA } = w;
  const P = (org = orgA) => `/api/v1/${org}`;
  const S = (org = orgA) => `${P(org)}/fee-schedules`;

  const call = async (method: string, path: string, body?: unknown, want?: number, token = admin): Promise<Res> => {
    const r = await t.request(method, path, { token, body });
    if (want !== undefined && r.status !== want) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
    return r;
  };

  const createSchedule = async (body: Record<string, unknown> = {}, org = orgA) =>
    (await call("POST", S(org), { name: unique("Fees"), schedule_type: "office", ...body }, 201)).body;
  const readSchedule = async (id: string, org = orgA) => (await call("GET", `${S(org)}/${id}`, undefined, 200)).body;
  const putFees = async (scheduleId: string, rows: Record<string, unknown>[], org = orgA) =>
    (await call("PUT", `${S(org)}/${scheduleId}/fees`, { fees: rows }, 200)).body;

  const codes = new Map<string, { id: string; default_fee: string }>();
  /** A seeded procedure code by its code (e.g. D2740), with its default fee. */
  const code = async (c: string, org = orgA) => {
    const key = `${org}:${c}`;
    if (!codes.has(key)) {
      const r = await call("GET", `${P(org)}/codes/procedure-codes?search=${c}`, undefined, 200);
      const found = r.body.items.find((i: { code: string }) => i.code === c);
      if (!found) throw new Error(`no procedure code ${c}`);
      codes.set(key, { id: found.id, default_fee: found.default_fee });
    }
    return codes.get(key)!;
  };
  const codeId = async (c: string, org = orgA) => (await code(c, org)).id;
  /** Every live procedure code of the org (the starter catalogue), in code order. */
  const allCodes = async (org = orgA) => {
    const out: { id: string; code: string }[] = [];
    for (let page = 1; ; page++) {
      const r = await call("GET", `${P(org)}/codes/procedure-codes?page_size=200&page=${page}`, undefined, 200);
      out.push(...r.body.items);
      if (out.length >= r.body.total) return out;
    }
  };

  const createLocation = async (body: Record<string, unknown> = {}, org = orgA) =>
    (await call("POST", `${P(org)}/locations`, { name: unique("Office"), timezone: "America/Chicago", ...body }, 201)).body;
  let abbreviations = 0;
  const createProvider = async (body: Record<string, unknown> = {}, org = orgA) =>
    (await call("POST", `${P(org)}/providers`, { abbreviation: `FS${abbreviations++}`, first_name: "Ada", last_name: "Molar", ...body }, 201)).body;
  const createPatient = async (body: Record<string, unknown> = {}, org = orgA) =>
    (await call("POST", `${P(org)}/patients`, { first_name: "Pat", last_name: "Ient", ...body }, 201)).body;
  const patch = async (path: string, body: Record<string, unknown>, want = 200) => {
    const current = (await call("GET", path, undefined, 200)).body;
    return call("PATCH", path, { base_version: current.version, ...body }, want);
  };

  /** Chart a procedure on a patient (crowns, D27xx, on tooth 3): the answer (a Charted procedure). */
  const chart = async (patientId: string, c: string, body: Record<string, unknown> = {}, org = orgA) => {
    const site = c.startsWith("D27") ? { tooth_number: "3" } : {};
    return (await call("POST", `${P(org)}/clinical/patients/${patientId}/procedures`, { procedure_code_uuid: await codeId(c, org), ...site, ...body }, 201))
      .body;
  };

  const db = () => orgDb(t, orgA);
  /** What is stored: every fee schedule and fee row (archived ones too) and the audit entries, to prove a refusal wrote nothing. */
  const snapshot = async () => {
    const d = await db();
    return d.read(function* (x) {
      return {
        schedules: yield* all(x.select().from(feeSchedules).orderBy(feeSchedules.id)),
        fees: yield* all(x.select().from(fees).orderBy(fees.id)),
        audit: (yield* get<{ n: number }>(x.select({ n: count() }).from(auditEntries)))!.n,
      };
    });
  };
  /** The stored fee rows of a schedule (deleted ones too). */
  const feeRows = async (scheduleId: string) => (await db()).read((x) => all<any>(x.select().from(fees).where(eq(fees.fee_schedule_id, scheduleId))));

  return {
    ...w,
    P,
    S,
    call,
    createSchedule,
    readSchedule,
    putFees,
    code,
    codeId,
    allCodes,
    createLocation,
    createProvider,
    createPatient,
    patch,
    chart,
    snapshot,
    feeRows,
  };
}

export type FeeWorld = Awaited<ReturnType<typeof feeWorld>>;
