// Scoped access, enforced (docs/iam/iam.md; src/platform/tenancy/grants.ts, placement.ts, http/guard.ts):
// a member whose key is held only at some locations or providers reaches
// exactly those records. One org, two locations (North, South), two providers
// (Ada at North, Grace at South); every location-bound route is tried by a
// member lacking the key, a member holding it at the other location, and a
// member holding it at the record's location.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { iamAssignments } from "@db/control/schema";
import { appointments } from "@db/tenant/appointments";
import { patients } from "@db/tenant/patients";
import { providerSchedules } from "@db/tenant/scheduling";
import { run } from "@/platform/db/work";
import { iamMemberWithLogin, startTestApp, type TestApp, type TestResponse } from "@tests/helpers";
import { createLocation, createOperatory, createPatient, createProvider, createType, rowsOf } from "@tests/domains/scheduling/provider-schedules/fixtures";

const DESK_KEYS = [
  "schedule.appointments.read",
  "schedule.appointments.write",
  "schedule.read",
  "schedule.write",
  "patients.read",
  "patients.write",
  "patients.medical.read",
  "patients.medical.write",
  "locations.read",
  "locations.write",
];
const LACKING = { code: "forbidden", detail: "You do not have permission to do this" };
const OUT_OF_SCOPE = { code: "forbidden", detail: "Your permission for this does not reach this location or provider" };

type Member = { id: string; email: string; token: string };

let t: TestApp;
let admin: string;
let orgId: string;
let P: string;
let north: { id: string; name: string };
let south: { id: string; name: string };
let ada: { id: string }; // works at North
let grace: { id: string }; // works at South
let opN: { id: string };
let opS: { id: string };
let type: { id: string };
let patN: { id: string }; // home North
let patS: { id: string }; // home South
let patO: { id: string }; // no home location: an org-level record
let patArch: { id: string }; // North, archived by the matrix
let patMove: { id: string }; // North, moved to South by an all-locations member
let apptN: any; // North, Ada, patN
let apptS: any; // South, Grace, patS
let schedN: any; // Ada at North
let schedS: any; // Grace at South
let schedAdaS: any; // Ada at South
let schedDel: any; // Ada at North, deleted by the matrix
let tagA: string;
let tagB: string;
let desk: string; // group id: DESK_KEYS
let desk2: string; // the same keys under another name
let sched: string; // group id: schedule.read, schedule.write

// members, each holding only what its name says
let m: {
  north: Member; // Desk at North, context all
  south: Member; // Desk at South, context location
  stranger: Member; // an unrelated key org-wide, none of the matrix's keys
  everyLoc: Member; // Desk at the org node, context location
  orgOnly: Member; // Desk at the org node, context org
  selfAda: Member; // Sched at provider Ada, context self
  adaDesk: Member; // Desk at provider Ada, context provider
  lapsed: Member; // Desk at North suspended, Desk2 at North expired
};

const call = (method: string, path: string, token: string, body?: unknown) => t.request(method, `${P}${path}`, { token, body });
const asAdmin = async (path: string) => {
  const r = await call("GET", path, admin);
  if (r.status !== 200) throw new Error(`admin GET ${path}: ${r.status} ${r.text}`);
  return r.body;
};
const ok = async (r: Promise<TestResponse>, status = 201) => {
  const res = await r;
  if (res.status !== status) throw new Error(`setup: ${res.status} ${res.text}`);
  return res.body;
};
const count = async (table: any) => (await rowsOf(t, orgId, table)).length;

async function group(name: string, keys: string[]) {
  return (await ok(call("POST", "/iam/groups", admin, { name, permission_keys: keys }))).id as string;
}
async function assign(user: Member, group_uuid: string, scope_node_uuid: string, context: string, expires_at?: string) {
  const body = await ok(call("POST", "/iam/assignments", admin, { user_id: user.id, group_uuid, scope_node_uuid, context, expires_at }));
  expect(body.status).toBe("active");
  return body.id as string;
}

const booking = (v: Record<string, unknown>) => ({
  appointment_type_uuid: type.id,
  scheduled_start: "2027-03-09T09:00:00",
  scheduled_end: "2027-03-09T10:00:00",
  ...v,
});

beforeAll(async () => {
  t = await startTestApp();
  admin = await t.adminToken();
  orgId = (await t.createOrg()).id;
  P = `/api/v1/${orgId}`;
  north = await createLocation(t, orgId, "America/New_York", "North Clinic");
  south = await createLocation(t, orgId, "America/Chicago", "South Clinic");
  ada = await createProvider(t, orgId, { abbreviation: "ADA", first_name: "Ada", last_name: "Molar" });
  grace = await createProvider(t, orgId, { abbreviation: "GRA", first_name: "Grace", last_name: "Canine" });
  opN = await createOperatory(t, orgId, north.id, { name: "North 1" });
  opS = await createOperatory(t, orgId, south.id, { name: "South 1" });
  type = await createType(t, orgId);
  patN = await createPatient(t, orgId, { first_name: "Nora", last_name: "North", location_id: north.id });
  patS = await createPatient(t, orgId, { first_name: "Sam", last_name: "South", location_id: south.id });
  patO = await createPatient(t, orgId, { first_name: "Olga", last_name: "Orgwide", location_id: null });
  patArch = await createPatient(t, orgId, { first_name: "Archie", last_name: "North", location_id: north.id });
  patMove = await createPatient(t, orgId, { first_name: "Mo", last_name: "Ving", location_id: north.id });

  apptN = await ok(
    call(
      "POST",
      "/appointments",
      admin,
      booking({ patient_uuid: patN.id, location_uuid: north.id, provider_uuid: ada.id, operatory_uuid: opN.id, is_asap: true }),
    ),
  );
  apptS = await ok(
    call(
      "POST",
      "/appointments",
      admin,
      booking({ patient_uuid: patS.id, location_uuid: south.id, provider_uuid: grace.id, operatory_uuid: opS.id, is_asap: true }),
    ),
  );
  const schedule = (v: Record<string, unknown>) => ok(call("POST", "/schedule/provider-schedules", admin, { start_time: "08:00", end_time: "12:00", ...v }));
  schedN = await schedule({ provider_uuid: ada.id, location_uuid: north.id, weekday: 1 });
  schedS = await schedule({ provider_uuid: grace.id, location_uuid: south.id, weekday: 1 });
  schedAdaS = await schedule({ provider_uuid: ada.id, location_uuid: south.id, weekday: 2 });
  schedDel = await schedule({ provider_uuid: ada.id, location_uuid: north.id, weekday: 5 });

  tagA = (await ok(call("POST", "/tag-definitions", admin, { name: "VIP" }))).id;
  tagB = (await ok(call("POST", "/tag-definitions", admin, { name: "Anxious" }))).id;
  await ok(call("POST", `/patients/${patN.id}/tags`, admin, { tag_definition_uuid: tagA }));
  await ok(call("POST", `/patients/${patN.id}/alerts`, admin, { title: "Premedicate" }));

  desk = await group("Front desk", DESK_KEYS);
  desk2 = await group("Front desk (temp)", DESK_KEYS);
  sched = await group("Schedulers", ["schedule.read", "schedule.write"]);
  const unrelated = await group("Communications", ["patients.communications.read"]);

  // argon2 makes logins slow: a handful of members, created together and reused
  const names = ["north", "south", "stranger", "everyLoc", "orgOnly", "selfAda", "adaDesk", "lapsed"] as const;
  const made = await Promise.all(names.map(() => iamMemberWithLogin(t, `${P}/iam`, [])));
  m = Object.fromEntries(names.map((n, i) => [n, made[i]])) as typeof m;
  await assign(m.north, desk, north.id, "all");
  await assign(m.south, desk, south.id, "location");
  await assign(m.stranger, unrelated, orgId, "all");
  await assign(m.everyLoc, desk, orgId, "location");
  await assign(m.orgOnly, desk, orgId, "org");
  await assign(m.selfAda, sched, ada.id, "self");
  await assign(m.adaDesk, desk, ada.id, "provider");
});
afterAll(() => t.close());

// ---------------------------------------------------------------------------------------------
// The matrix: every route below acts at North. `state` is what the admin sees of the
// record (or the count a create would change); refusals must leave it as it was.

type Route = {
  key: string;
  method: string;
  path: () => string;
  body?: () => Promise<unknown> | unknown;
  state: () => Promise<unknown>;
  status: number;
  then: (r: TestResponse, before: any) => void | Promise<void>;
};

const version = async (path: string) => (await asAdmin(path)).version as number;
const itemsOf = (r: TestResponse) => r.body.items as any[];

const MATRIX: Record<string, Route> = {
  "GET /appointments?location_uuid=North": {
    key: "schedule.appointments.read",
    method: "GET",
    path: () => `/appointments?location_uuid=${north.id}`,
    state: async () => null,
    status: 200,
    then: (r) => {
      expect(itemsOf(r).map((a) => a.id)).toContain(apptN.id);
      expect(new Set(itemsOf(r).map((a) => a.location.uuid))).toEqual(new Set([north.id]));
    },
  },
  "POST /appointments (at North)": {
    key: "schedule.appointments.write",
    method: "POST",
    path: () => "/appointments",
    body: () =>
      booking({
        patient_uuid: patN.id,
        location_uuid: north.id,
        provider_uuid: ada.id,
        operatory_uuid: opN.id,
        scheduled_start: "2027-03-10T09:00:00",
        scheduled_end: "2027-03-10T10:00:00",
      }),
    state: () => count(appointments),
    status: 201,
    then: async (r, before) => {
      expect(r.body).toMatchObject({ status: "scheduled", location: { uuid: north.id }, provider: { uuid: ada.id }, patient: { uuid: patN.id } });
      expect(await count(appointments)).toBe(before + 1);
    },
  },
  "GET /appointments/asap-list?location_uuid=North": {
    key: "schedule.appointments.read",
    method: "GET",
    path: () => `/appointments/asap-list?location_uuid=${north.id}`,
    state: async () => null,
    status: 200,
    then: (r) => {
      expect(itemsOf(r).map((a) => a.id)).toEqual([apptN.id]);
    },
  },
  "GET /appointments/{id}": {
    key: "schedule.appointments.read",
    method: "GET",
    path: () => `/appointments/${apptN.id}`,
    state: () => asAdmin(`/appointments/${apptN.id}`),
    status: 200,
    then: (r, before) => {
      expect(r.body).toEqual(before);
    },
  },
  "PATCH /appointments/{id}": {
    key: "schedule.appointments.write",
    method: "PATCH",
    path: () => `/appointments/${apptN.id}`,
    body: async () => ({ base_version: await version(`/appointments/${apptN.id}`), notes: "Bring x-rays" }),
    state: () => asAdmin(`/appointments/${apptN.id}`),
    status: 200,
    then: (r, before) => {
      expect(r.body).toMatchObject({ notes: "Bring x-rays", version: before.version + 1 });
    },
  },
  "POST /appointments/{id}/confirmation": {
    key: "schedule.appointments.write",
    method: "POST",
    path: () => `/appointments/${apptN.id}/confirmation`,
    body: async () => ({ confirmation_status: "left_message", method: "phone", base_version: await version(`/appointments/${apptN.id}`) }),
    state: () => asAdmin(`/appointments/${apptN.id}`),
    status: 200,
    then: (r, before) => {
      expect(before.confirmation_status).toBe("unconfirmed");
      expect(r.body).toMatchObject({ confirmation_status: "left_message", confirmation_method: "phone", status: "scheduled", version: before.version + 1 });
    },
  },
  "POST /appointments/{id}/status": {
    key: "schedule.appointments.write",
    method: "POST",
    path: () => `/appointments/${apptN.id}/status`,
    body: async () => ({ status: "confirmed", base_version: await version(`/appointments/${apptN.id}`) }),
    state: () => asAdmin(`/appointments/${apptN.id}`),
    status: 200,
    then: (r, before) => {
      expect(before.status).toBe("scheduled");
      expect(r.body).toMatchObject({ status: "confirmed", version: before.version + 1 });
    },
  },
  "GET /patients/{id}/appointments": {
    key: "schedule.appointments.read",
    method: "GET",
    path: () => `/patients/${patN.id}/appointments`,
    state: async () => null,
    status: 200,
    then: (r) => {
      expect(itemsOf(r).map((a) => a.id)).toContain(apptN.id);
      expect(new Set(itemsOf(r).map((a) => a.patient.uuid))).toEqual(new Set([patN.id]));
    },
  },
  "GET /schedule/provider-schedules?location_uuid=North": {
    key: "schedule.read",
    method: "GET",
    path: () => `/schedule/provider-schedules?location_uuid=${north.id}`,
    state: async () => null,
    status: 200,
    then: (r) => {
      expect(itemsOf(r).map((s) => s.id)).toContain(schedN.id);
      expect(new Set(itemsOf(r).map((s) => s.location.uuid))).toEqual(new Set([north.id]));
    },
  },
  "POST /schedule/provider-schedules (at North)": {
    key: "schedule.write",
    method: "POST",
    path: () => "/schedule/provider-schedules",
    body: () => ({ provider_uuid: ada.id, location_uuid: north.id, weekday: 3, start_time: "08:00", end_time: "12:00" }),
    state: () => count(providerSchedules),
    status: 201,
    then: async (r, before) => {
      expect(r.body).toMatchObject({ provider: { uuid: ada.id }, location: { uuid: north.id }, weekday: 3, version: 1 });
      expect(await count(providerSchedules)).toBe(before + 1);
    },
  },
  "GET /schedule/provider-schedules/{id}": {
    key: "schedule.read",
    method: "GET",
    path: () => `/schedule/provider-schedules/${schedN.id}`,
    state: () => asAdmin(`/schedule/provider-schedules/${schedN.id}`),
    status: 200,
    then: (r, before) => {
      expect(r.body).toEqual(before);
    },
  },
  "PATCH /schedule/provider-schedules/{id}": {
    key: "schedule.write",
    method: "PATCH",
    path: () => `/schedule/provider-schedules/${schedN.id}`,
    body: async () => ({ base_version: await version(`/schedule/provider-schedules/${schedN.id}`), end_time: "13:00" }),
    state: () => asAdmin(`/schedule/provider-schedules/${schedN.id}`),
    status: 200,
    then: (r, before) => {
      expect(before.end_time).toBe("12:00");
      expect(r.body).toMatchObject({ end_time: "13:00", version: before.version + 1 });
    },
  },
  "DELETE /schedule/provider-schedules/{id}": {
    key: "schedule.write",
    method: "DELETE",
    path: () => `/schedule/provider-schedules/${schedDel.id}?base_version=1`,
    state: () => asAdmin(`/schedule/provider-schedules/${schedDel.id}`),
    status: 204,
    then: async () => {
      expect((await call("GET", `/schedule/provider-schedules/${schedDel.id}`, admin)).status).toBe(404);
    },
  },
  "GET /patients?location_uuid=North": {
    key: "patients.read",
    method: "GET",
    path: () => `/patients?location_uuid=${north.id}`,
    state: async () => null,
    status: 200,
    then: (r) => {
      expect(itemsOf(r).map((p) => p.id)).toContain(patN.id);
      expect(itemsOf(r).map((p) => p.id)).not.toContain(patS.id);
      expect(new Set(itemsOf(r).map((p) => p.location?.uuid))).toEqual(new Set([north.id]));
    },
  },
  "POST /patients (at North)": {
    key: "patients.write",
    method: "POST",
    path: () => "/patients",
    body: () => ({ first_name: "Nell", last_name: "Newcomer", location_uuid: north.id }),
    state: () => count(patients),
    status: 201,
    then: async (r, before) => {
      expect(r.body).toMatchObject({ first_name: "Nell", last_name: "Newcomer", location: { uuid: north.id }, status: "active" });
      expect(await count(patients)).toBe(before + 1);
    },
  },
  "GET /patients/{id}": {
    key: "patients.read",
    method: "GET",
    path: () => `/patients/${patN.id}`,
    state: () => asAdmin(`/patients/${patN.id}`),
    status: 200,
    then: (r, before) => {
      expect(r.body).toEqual(before);
    },
  },
  "PATCH /patients/{id}": {
    key: "patients.write",
    method: "PATCH",
    path: () => `/patients/${patN.id}`,
    body: async () => ({ base_version: await version(`/patients/${patN.id}`), preferred_name: "Norrie" }),
    state: () => asAdmin(`/patients/${patN.id}`),
    status: 200,
    then: (r, before) => {
      expect(before.preferred_name).toBeNull();
      expect(r.body).toMatchObject({ preferred_name: "Norrie", location: { uuid: north.id }, version: before.version + 1 });
    },
  },
  "POST /patients/{id}/archive": {
    key: "patients.write",
    method: "POST",
    path: () => `/patients/${patArch.id}/archive`,
    state: () => asAdmin(`/patients/${patArch.id}`),
    status: 200,
    then: (r, before) => {
      expect(before.status).toBe("active");
      expect(r.body).toMatchObject({ status: "archived", deleted_at: expect.any(String) });
    },
  },
  "GET /patients/{id}/tags": {
    key: "patients.read",
    method: "GET",
    path: () => `/patients/${patN.id}/tags`,
    state: async () => null,
    status: 200,
    then: (r) => {
      expect(itemsOf(r).map((x) => x.tag_definition.uuid)).toEqual([tagA]);
    },
  },
  "POST /patients/{id}/tags": {
    key: "patients.write",
    method: "POST",
    path: () => `/patients/${patN.id}/tags`,
    body: () => ({ tag_definition_uuid: tagB }),
    state: () => asAdmin(`/patients/${patN.id}/tags`),
    status: 201,
    then: async (r, before) => {
      expect(before.total).toBe(1);
      expect(r.body.tag_definition.uuid).toBe(tagB);
      expect((await asAdmin(`/patients/${patN.id}/tags`)).total).toBe(2);
    },
  },
  "GET /patients/{id}/alerts": {
    key: "patients.medical.read",
    method: "GET",
    path: () => `/patients/${patN.id}/alerts`,
    state: async () => null,
    status: 200,
    then: (r) => {
      expect(itemsOf(r).map((a) => a.title)).toEqual(["Premedicate"]);
    },
  },
  "POST /patients/{id}/alerts": {
    key: "patients.medical.write",
    method: "POST",
    path: () => `/patients/${patN.id}/alerts`,
    body: () => ({ title: "Latex allergy", severity: "high" }),
    state: () => asAdmin(`/patients/${patN.id}/alerts`),
    status: 201,
    then: async (r, before) => {
      expect(before.total).toBe(1);
      expect(r.body).toMatchObject({ title: "Latex allergy", severity: "high", patient: { uuid: patN.id } });
      expect((await asAdmin(`/patients/${patN.id}/alerts`)).total).toBe(2);
    },
  },
  "GET /locations/{id}": {
    key: "locations.read",
    method: "GET",
    path: () => `/locations/${north.id}`,
    state: () => asAdmin(`/locations/${north.id}`),
    status: 200,
    then: (r, before) => {
      expect(r.body).toEqual(before);
    },
  },
  "PATCH /locations/{id}": {
    key: "locations.write",
    method: "PATCH",
    path: () => `/locations/${north.id}`,
    body: async () => ({ base_version: await version(`/locations/${north.id}`), phone: "555-0100" }),
    state: () => asAdmin(`/locations/${north.id}`),
    status: 200,
    then: (r, before) => {
      expect(r.body).toMatchObject({ name: "North Clinic", phone: "555-0100", version: before.version + 1 });
    },
  },
};

describe("the scope matrix: routes acting at North", () => {
  for (const [name, route] of Object.entries(MATRIX)) {
    test(`${name} (${route.key}): lacking 403, other location 403, unchanged; North 2xx`, async () => {
      const send = async (who: Member) => call(route.method, route.path(), who.token, route.body ? await route.body() : undefined);
      const before = await route.state();

      const lacking = await send(m.stranger);
      expect({ status: lacking.status, body: lacking.body }).toEqual({ status: 403, body: LACKING });
      expect(await route.state()).toEqual(before);

      const elsewhere = await send(m.south);
      expect({ status: elsewhere.status, body: elsewhere.body }).toEqual({ status: 403, body: OUT_OF_SCOPE });
      expect(await route.state()).toEqual(before);

      const here = await send(m.north);
      expect(here.status).toBe(route.status);
      await route.then(here, before);
    });
  }
});

// ---------------------------------------------------------------------------------------------

describe("lists", () => {
  test("unnarrowed lists need the key org-wide: 403 for a location-scoped member and for one at every location; 200 for the admin", async () => {
    for (const path of ["/appointments", "/appointments/asap-list", "/schedule/provider-schedules", "/patients"]) {
      for (const who of [m.north, m.everyLoc]) {
        const r = await call("GET", path, who.token);
        expect({ path, status: r.status, body: r.body }).toEqual({ path, status: 403, body: OUT_OF_SCOPE });
      }
      expect((await call("GET", path, admin)).status).toBe(200);
    }
  });

  test("narrowed to her own location: only that location's rows; narrowed to the other location or to a provider she does not hold: 403", async () => {
    const mine = await call("GET", `/appointments?location_uuid=${north.id}`, m.north.token);
    expect(mine.status).toBe(200);
    expect(itemsOf(mine).every((a) => a.location.uuid === north.id)).toBe(true);
    expect(itemsOf(mine).map((a) => a.id)).not.toContain(apptS.id);
    const all = await call("GET", "/appointments", admin);
    expect(mine.body.total).toBe(itemsOf(all).filter((a) => a.location.uuid === north.id).length);

    const pats = await call("GET", `/patients?location_uuid=${north.id}`, m.north.token);
    expect(
      itemsOf(pats)
        .map((p) => p.id)
        .sort(),
    ).toEqual(
      (await rowsOf(t, orgId, patients))
        .filter((p) => p.location_id === north.id && !p.deleted_at)
        .map((p) => p.id)
        .sort(),
    );

    for (const path of [
      `/appointments?location_uuid=${south.id}`,
      `/appointments?provider_uuid=${ada.id}`,
      `/appointments/asap-list?location_uuid=${south.id}`,
      `/schedule/provider-schedules?location_uuid=${south.id}`,
      `/schedule/provider-schedules?provider_uuid=${ada.id}`,
      `/patients?location_uuid=${south.id}`,
    ]) {
      const r = await call("GET", path, m.north.token);
      expect({ path, status: r.status, body: r.body }).toEqual({ path, status: 403, body: OUT_OF_SCOPE });
    }
    // her location with a provider filter on top still acts at North
    const both = await call("GET", `/appointments?location_uuid=${north.id}&provider_uuid=${grace.id}`, m.north.token);
    expect({ status: both.status, total: both.body.total }).toEqual({ status: 200, total: 0 });
  });
});

describe("unknown ids", () => {
  test("an unknown appointment or template answers its own 404; an unknown patient is org-level (403), like one elsewhere", async () => {
    const UNKNOWN = "01a1fe29-0000-7000-8000-000000000000";
    expect((await call("GET", `/appointments/${UNKNOWN}`, m.north.token)).status).toBe(404);
    expect((await call("GET", `/schedule/provider-schedules/${UNKNOWN}`, m.north.token)).status).toBe(404);
    const p = await call("GET", `/patients/${UNKNOWN}`, m.north.token);
    expect({ status: p.status, body: p.body }).toEqual({ status: 403, body: OUT_OF_SCOPE });
    expect((await call("GET", `/patients/${UNKNOWN}`, admin)).status).toBe(404);
  });
});

describe("org-node contexts", () => {
  test("context location reaches every location (North and South records) but neither an unnarrowed list nor an org-level patient", async () => {
    const tok = m.everyLoc.token;
    for (const path of [
      `/appointments/${apptN.id}`,
      `/appointments/${apptS.id}`,
      `/patients/${patN.id}`,
      `/patients/${patS.id}`,
      `/schedule/provider-schedules/${schedS.id}`,
    ]) {
      expect({ path, status: (await call("GET", path, tok)).status }).toEqual({ path, status: 200 });
    }
    const s = await asAdmin(`/appointments/${apptS.id}`);
    const patched = await call("PATCH", `/appointments/${apptS.id}`, tok, { base_version: s.version, notes: "South, by every-location" });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ notes: "South, by every-location", version: s.version + 1 });
    const southList = await call("GET", `/appointments?location_uuid=${south.id}`, tok);
    expect(southList.status).toBe(200);
    expect(itemsOf(southList).map((a) => a.id)).toEqual([apptS.id]);

    const orgLevel = await call("GET", `/patients/${patO.id}`, tok);
    expect({ status: orgLevel.status, body: orgLevel.body }).toEqual({ status: 403, body: OUT_OF_SCOPE });
    const before = await count(patients);
    const noHome = await call("POST", "/patients", tok, { first_name: "No", last_name: "Home" });
    expect({ status: noHome.status, body: noHome.body }).toEqual({ status: 403, body: OUT_OF_SCOPE });
    expect(await count(patients)).toBe(before);
  });

  test("context org reaches org-level records (a patient with no home location) but no location's", async () => {
    const tok = m.orgOnly.token;
    const got = await call("GET", `/patients/${patO.id}`, tok);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: patO.id, first_name: "Olga", location: null });
    const patched = await call("PATCH", `/patients/${patO.id}`, tok, { base_version: got.body.version, preferred_name: "Ollie" });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ preferred_name: "Ollie", version: got.body.version + 1 });
    const created = await call("POST", "/patients", tok, { first_name: "Free", last_name: "Floating" });
    expect(created.status).toBe(201);
    expect(created.body.location).toBeNull();

    for (const [method, path] of [
      ["GET", `/patients/${patN.id}`],
      ["GET", `/appointments/${apptN.id}`],
      ["GET", `/locations/${north.id}`],
      ["GET", `/patients?location_uuid=${north.id}`],
    ]) {
      const r = await call(method!, path!, tok);
      expect({ path, status: r.status, body: r.body }).toEqual({ path, status: 403, body: OUT_OF_SCOPE });
    }
    const before = await count(patients);
    const atNorth = await call("POST", "/patients", tok, { first_name: "At", last_name: "North", location_uuid: north.id });
    expect({ status: atNorth.status, body: atNorth.body }).toEqual({ status: 403, body: OUT_OF_SCOPE });
    expect(await count(patients)).toBe(before);
  });
});

describe("provider node, context self", () => {
  test("reaches Ada's templates (at either location) and not Grace's", async () => {
    const tok = m.selfAda.token;
    const mine = await call("GET", `/schedule/provider-schedules/${schedN.id}`, tok);
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({ id: schedN.id, provider: { uuid: ada.id }, location: { uuid: north.id } });
    const atSouth = await call("GET", `/schedule/provider-schedules/${schedAdaS.id}`, tok);
    expect(atSouth.status).toBe(200);
    expect(atSouth.body.location.uuid).toBe(south.id);
    const patched = await call("PATCH", `/schedule/provider-schedules/${schedAdaS.id}`, tok, { base_version: atSouth.body.version, start_time: "07:30" });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ start_time: "07:30", version: atSouth.body.version + 1 });

    const grace0 = await asAdmin(`/schedule/provider-schedules/${schedS.id}`);
    const read = await call("GET", `/schedule/provider-schedules/${schedS.id}`, tok);
    expect({ status: read.status, body: read.body }).toEqual({ status: 403, body: OUT_OF_SCOPE });
    const patch = await call("PATCH", `/schedule/provider-schedules/${schedS.id}`, tok, { base_version: grace0.version, end_time: "18:00" });
    expect({ status: patch.status, body: patch.body }).toEqual({ status: 403, body: OUT_OF_SCOPE });
    const del = await call("DELETE", `/schedule/provider-schedules/${schedS.id}?base_version=${grace0.version}`, tok);
    expect({ status: del.status, body: del.body }).toEqual({ status: 403, body: OUT_OF_SCOPE });
    expect(await asAdmin(`/schedule/provider-schedules/${schedS.id}`)).toEqual(grace0);
  });

  test("lists narrowed to Ada only; creating for Ada anywhere, never for Grace", async () => {
    const tok = m.selfAda.token;
    const list = await call("GET", `/schedule/provider-schedules?provider_uuid=${ada.id}`, tok);
    expect(list.status).toBe(200);
    expect(new Set(itemsOf(list).map((s) => s.provider.uuid))).toEqual(new Set([ada.id]));
    expect(itemsOf(list).map((s) => s.id)).toEqual(expect.arrayContaining([schedN.id, schedAdaS.id]));
    for (const path of ["", `?provider_uuid=${grace.id}`, `?location_uuid=${north.id}`]) {
      const r = await call("GET", `/schedule/provider-schedules${path}`, tok);
      expect({ path, status: r.status }).toEqual({ path, status: 403 });
    }

    const before = await count(providerSchedules);
    const forGrace = await call("POST", "/schedule/provider-schedules", tok, {
      provider_uuid: grace.id,
      location_uuid: north.id,
      weekday: 4,
      start_time: "08:00",
      end_time: "12:00",
    });
    expect({ status: forGrace.status, body: forGrace.body }).toEqual({ status: 403, body: OUT_OF_SCOPE });
    expect(await count(providerSchedules)).toBe(before);
    const forAda = await call("POST", "/schedule/provider-schedules", tok, {
      provider_uuid: ada.id,
      location_uuid: south.id,
      weekday: 4,
      start_time: "08:00",
      end_time: "12:00",
    });
    expect(forAda.status).toBe(201);
    expect(forAda.body).toMatchObject({ provider: { uuid: ada.id }, location: { uuid: south.id }, weekday: 4 });

    // the group holds no appointment key: Ada's own appointment is 403 at the route
    const appt = await call("GET", `/appointments/${apptN.id}`, tok);
    expect({ status: appt.status, body: appt.body }).toEqual({ status: 403, body: LACKING });
  });
});

describe("provider node, context provider: appointments", () => {
  test("reaches Ada's appointment at North through Ada; handing it to Grace also acts at Grace and is 403; Grace's appointment is 403", async () => {
    const tok = m.adaDesk.token;
    const before = await asAdmin(`/appointments/${apptN.id}`);
    expect((await call("GET", `/appointments/${apptN.id}`, tok)).body).toEqual(before);

    const handOver = await call("PATCH", `/appointments/${apptN.id}`, tok, { base_version: before.version, provider_uuid: grace.id });
    expect({ status: handOver.status, body: handOver.body }).toEqual({ status: 403, body: OUT_OF_SCOPE });
    expect(await asAdmin(`/appointments/${apptN.id}`)).toEqual(before);
    const edit = await call("PATCH", `/appointments/${apptN.id}`, tok, { base_version: before.version, notes: "Edited through Ada" });
    expect(edit.status).toBe(200);
    expect(edit.body).toMatchObject({ notes: "Edited through Ada", provider: { uuid: ada.id }, version: before.version + 1 });

    const grace0 = await asAdmin(`/appointments/${apptS.id}`);
    for (const [method, path, body] of [
      ["GET", `/appointments/${apptS.id}`, undefined],
      ["PATCH", `/appointments/${apptS.id}`, { base_version: grace0.version, notes: "nope" }],
      ["POST", `/appointments/${apptS.id}/status`, { base_version: grace0.version, status: "cancelled" }],
      ["GET", `/appointments?location_uuid=${north.id}`, undefined],
    ] as const) {
      const r = await call(method, path, tok, body);
      expect({ path, status: r.status, body: r.body }).toEqual({ path, status: 403, body: OUT_OF_SCOPE });
    }
    expect(await asAdmin(`/appointments/${apptS.id}`)).toEqual(grace0);

    const list = await call("GET", `/appointments?provider_uuid=${ada.id}`, tok);
    expect(list.status).toBe(200);
    expect(new Set(itemsOf(list).map((a) => a.provider.uuid))).toEqual(new Set([ada.id]));
    // booking with Ada acts at Ada, wherever it is; with Grace it is refused
    const atSouth = await call(
      "POST",
      "/appointments",
      tok,
      booking({
        patient_uuid: patS.id,
        location_uuid: south.id,
        provider_uuid: ada.id,
        scheduled_start: "2027-03-11T09:00:00",
        scheduled_end: "2027-03-11T10:00:00",
      }),
    );
    expect(atSouth.status).toBe(201);
    expect(atSouth.body).toMatchObject({ location: { uuid: south.id }, provider: { uuid: ada.id } });
    const n = await count(appointments);
    const withGrace = await call(
      "POST",
      "/appointments",
      tok,
      booking({
        patient_uuid: patN.id,
        location_uuid: north.id,
        provider_uuid: grace.id,
        scheduled_start: "2027-03-12T09:00:00",
        scheduled_end: "2027-03-12T10:00:00",
      }),
    );
    expect({ status: withGrace.status, body: withGrace.body }).toEqual({ status: 403, body: OUT_OF_SCOPE });
    expect(await count(appointments)).toBe(n);
  });
});

describe("assignments that grant nothing", () => {
  test("a suspended assignment grants nothing", async () => {
    const tok = m.lapsed.token;
    const id = await assign(m.lapsed, desk, north.id, "all");
    expect((await call("GET", `/appointments/${apptN.id}`, tok)).status).toBe(200);
    const suspended = await call("POST", `/iam/assignments/${id}/suspend`, admin);
    expect(suspended.status).toBe(200);
    expect(suspended.body.status).toBe("suspended");

    const before = await asAdmin(`/patients/${patN.id}`);
    for (const path of [`/appointments/${apptN.id}`, `/patients/${patN.id}`, `/schedule/provider-schedules/${schedN.id}`]) {
      const r = await call("GET", path, tok);
      expect({ path, status: r.status, body: r.body }).toEqual({ path, status: 403, body: LACKING });
    }
    const patch = await call("PATCH", `/patients/${patN.id}`, tok, { base_version: before.version, preferred_name: "Suspended" });
    expect({ status: patch.status, body: patch.body }).toEqual({ status: 403, body: LACKING });
    expect(await asAdmin(`/patients/${patN.id}`)).toEqual(before);
  });

  test("an expired assignment grants nothing", async () => {
    const tok = m.lapsed.token;
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString();
    const id = await assign(m.lapsed, desk2, north.id, "location", tomorrow);
    expect((await call("GET", `/appointments/${apptN.id}`, tok)).status).toBe(200);

    const past = new Date(Date.now() - 60_000).toISOString();
    await t.rt.control.write((tx) => run(tx.update(iamAssignments).set({ expires_at: past }).where(eq(iamAssignments.id, id))));
    await t.rt.access.invalidate();
    expect((await asAdmin(`/iam/assignments/${id}`)).status).toBe("expired");

    const before = await asAdmin(`/appointments/${apptN.id}`);
    const read = await call("GET", `/appointments/${apptN.id}`, tok);
    expect({ status: read.status, body: read.body }).toEqual({ status: 403, body: LACKING });
    const patch = await call("PATCH", `/appointments/${apptN.id}`, tok, { base_version: before.version, notes: "Expired" });
    expect({ status: patch.status, body: patch.body }).toEqual({ status: 403, body: LACKING });
    expect(await asAdmin(`/appointments/${apptN.id}`)).toEqual(before);
  });
});

describe("moving a patient between locations", () => {
  test("needs the key at both: North's member cannot send a patient South (nor make them org-level), South's cannot pull them", async () => {
    const before = await asAdmin(`/patients/${patMove.id}`);
    expect(before.location.uuid).toBe(north.id);
    for (const [who, body] of [
      [m.north, { location_uuid: south.id }],
      [m.north, { location_uuid: null }],
      [m.south, { location_uuid: south.id }],
    ] as const) {
      const r = await call("PATCH", `/patients/${patMove.id}`, who.token, { base_version: before.version, ...body });
      expect({ body, status: r.status, res: r.body }).toEqual({ body, status: 403, res: OUT_OF_SCOPE });
      expect(await asAdmin(`/patients/${patMove.id}`)).toEqual(before);
    }

    const moved = await call("PATCH", `/patients/${patMove.id}`, m.everyLoc.token, { base_version: before.version, location_uuid: south.id });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ location: { uuid: south.id }, version: before.version + 1 });
    // now South's: North's member has lost it, South's has it
    expect((await call("GET", `/patients/${patMove.id}`, m.north.token)).status).toBe(403);
    expect((await call("GET", `/patients/${patMove.id}`, m.south.token)).status).toBe(200);
  });
});

describe("idempotent replays", () => {
  test("a stored answer is replayed only where the member still reaches: after losing North, repeating a North create is 403", async () => {
    const member = await iamMemberWithLogin(t, `${P}/iam`, []);
    const atNorth = await assign(member, desk, north.id, "all");
    await assign(member, desk, south.id, "all");
    const body = { first_name: "Replay", last_name: "North", location_uuid: north.id };
    const headers = { "idempotency-key": `replay-${Date.now()}` };
    const first = await t.request("POST", `${P}/patients`, { token: member.token, body, headers });
    expect(first.status).toBe(201);
    const again = await t.request("POST", `${P}/patients`, { token: member.token, body, headers });
    expect({ status: again.status, id: again.body.id }).toEqual({ status: 201, id: first.body.id });
    expect((await call("POST", `/iam/assignments/${atNorth}/suspend`, admin)).status).toBe(200);
    const refused = await t.request("POST", `${P}/patients`, { token: member.token, body, headers });
    expect({ status: refused.status, body: refused.body }).toEqual({ status: 403, body: OUT_OF_SCOPE });
  });
});
