// The TypeScript client (clients/typescript): its generated types are current,
// and it works end to end against the real service in its own process.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CuspApiError, createCuspClient, idempotencyKey, isReplay, unwrap, type CuspClient, type CuspEvent, type Session } from "@clients/typescript";
import { generateClientSchema, SCHEMA_FILE } from "@scripts/generate-client";
import { startServer, type ServerProcess } from "@tests/support/server-process";
import { waitFor } from "@tests/support/wait";
import type { EventEnvelope } from "@/platform/events/envelope";

// The stream is not in the OpenAPI document, so the client writes the event envelope out itself:
// `npm run typecheck` fails when it is no longer the service's own.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const envelopeIsTheService: Same<CuspEvent, EventEnvelope> = true;
void envelopeIsTheService;

const ADMIN = { email: "admin@example.com", password: "admin-password" };
/** Access tokens live 2 seconds on this server, so refreshing is exercised in every test. */
const TOKEN_TTL_SECONDS = 2;

describe("generated types", () => {
  test("clients/typescript/schema.d.ts is what the current OpenAPI document generates", async () => {
    const expected = await generateClientSchema();
    const committed = readFileSync(SCHEMA_FILE, "utf8");
    if (committed !== expected) {
      const a = committed.split("\n");
      const b = expected.split("\n");
      let line = 0;
      while (line < a.length && a[line] === b[line]) line++;
      throw new Error(
        `clients/typescript/schema.d.ts is stale: run \`npm run client:generate\` and commit the result.\n` +
          `First difference at line ${line + 1}:\n  committed: ${a[line] ?? "(end of file)"}\n  generated: ${b[line] ?? "(end of file)"}`,
      );
    }
  }, 60_000);
});

let server: ServerProcess;
let dataDir: string;
/** Every request the main client sent, as "METHOD /path status". */
const sent: string[] = [];
const logged = (log: string[]) => async (request: Request) => {
  const response = await fetch(request);
  const url = new URL(request.url);
  log.push(`${request.method} ${url.pathname}${url.search} ${response.status}`);
  return response;
};
let cusp: CuspClient;

/** The records the pipeline needs, made through the client. */
let fx: {
  orgId: string;
  location: { id: string; name: string };
  provider: { id: string; first_name: string; last_name: string };
  operatoryId: string;
  patient: { id: string; first_name: string; last_name: string };
  type: { id: string; code: string };
  date: string;
};

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "cusp-client-"));
  server = await startServer(dataDir, { env: { ACCESS_TOKEN_TTL_SECONDS: String(TOKEN_TTL_SECONDS) } });
  cusp = createCuspClient({ baseUrl: server.base, fetch: logged(sent) });
  await cusp.login(ADMIN.email, ADMIN.password);

  const org = await unwrap(cusp.POST("/api/v1/admin/orgs", { body: { name: "Typed Client Dental", slug: `typed-${Date.now().toString(36)}` } }));
  const path = { org_id: org.id };
  const location = await unwrap(cusp.POST("/api/v1/{org_id}/locations", { params: { path }, body: { name: "Lakeside", timezone: "America/Chicago" } }));
  const provider = await unwrap(
    cusp.POST("/api/v1/{org_id}/providers", { params: { path }, body: { abbreviation: "DRL", first_name: "Lena", last_name: "Lindgren", title: "Dr." } }),
  );
  const operatory = await unwrap(
    cusp.POST("/api/v1/{org_id}/schedule/operatories", { params: { path }, body: { location_uuid: location.id, name: "Chair 1" } }),
  );
  const patient = await unwrap(
    cusp.POST("/api/v1/{org_id}/patients", { params: { path }, body: { first_name: "Quinn", last_name: "Quarterman", date_of_birth: "1987-04-12" } }),
  );
  const type = await unwrap(
    cusp.POST("/api/v1/{org_id}/appointment-types", { params: { path }, body: { code: "PROPHY", name: "Cleaning", duration_minutes: 45, color: "#10AC84" } }),
  );
  // working hours on the booking date's weekday (0 = Sunday), so availability has slots
  const date = "2031-03-04";
  await unwrap(
    cusp.POST("/api/v1/{org_id}/schedule/provider-schedules", {
      params: { path },
      body: {
        provider_uuid: provider.id,
        location_uuid: location.id,
        operatory_uuid: operatory.id,
        weekday: Temporal.PlainDate.from(date).dayOfWeek % 7,
        start_time: "08:00",
        end_time: "12:00",
      },
    }),
  );
  fx = { orgId: org.id, location, provider, operatoryId: operatory.id, patient, type, date };
}, 90_000);

afterAll(async () => {
  await server?.kill("SIGTERM");
  rmSync(dataDir, { recursive: true, force: true });
});

describe("the typed client against a running service", () => {
  test("the four-call booking pipeline, from a free slot to a scheduled appointment", async () => {
    const path = { org_id: fx.orgId };
    // a slot: the first free one of the date
    const availability = await unwrap(
      cusp.GET("/api/v1/{org_id}/schedule/availability", {
        params: { path, query: { location_uuid: fx.location.id, appointment_type_uuid: fx.type.id, date_from: fx.date, date_to: fx.date } },
      }),
    );
    expect(availability.duration_minutes).toBe(45);
    const slot = availability.slots[0]!;
    expect(slot).toEqual({ start: `${fx.date}T08:00:00`, end: `${fx.date}T08:45:00`, provider_uuid: fx.provider.id, operatory_uuid: fx.operatoryId });

    // 1. search the patient
    const found = await unwrap(cusp.GET("/api/v1/{org_id}/patients", { params: { path, query: { search: "quarterman", page_size: 10 } } }));
    expect(found.items.map((p) => p.uuid)).toEqual([fx.patient.id]);
    // 2. the active appointment types
    const types = await unwrap(cusp.GET("/api/v1/{org_id}/appointment-types", { params: { path, query: { is_active: "true" } } }));
    const type = types.items.find((t) => t.code === "PROPHY")!;
    expect({ uuid: type.uuid, duration_minutes: type.duration_minutes, color: type.color }).toEqual({
      uuid: fx.type.id,
      duration_minutes: 45,
      color: "#10AC84",
    });
    // 3. create the appointment in the slot
    const created = await cusp.POST("/api/v1/{org_id}/appointments", {
      params: { path },
      body: {
        patient_uuid: found.items[0]!.uuid,
        appointment_type_uuid: type.uuid,
        location_uuid: fx.location.id,
        provider_uuid: slot.provider_uuid,
        operatory_uuid: slot.operatory_uuid,
        scheduled_start: slot.start,
        scheduled_end: slot.end,
      },
    });
    expect(created.response.status).toBe(201);
    // 4. the 201 is the full appointment, scheduled
    const appt = created.data!;
    expect(appt).toMatchObject({
      uuid: appt.id,
      status: "scheduled",
      patient: { uuid: fx.patient.id, first_name: "Quinn", last_name: "Quarterman" },
      appointment_type: { uuid: fx.type.id, name: "Cleaning", duration_minutes: 45, color: "#10AC84" },
      scheduled_start: "2031-03-04T08:00:00",
      scheduled_end: "2031-03-04T08:45:00",
      location: { uuid: fx.location.id, name: "Lakeside" },
      provider: { uuid: fx.provider.id, first_name: "Lena", last_name: "Lindgren", title: "Dr." },
      operatory: { uuid: fx.operatoryId, name: "Chair 1" },
    });
    const read = await unwrap(cusp.GET("/api/v1/{org_id}/appointments/{appointment_id}", { params: { path: { ...path, appointment_id: appt.id } } }));
    expect({ status: read.status, version: read.version }).toEqual({ status: "scheduled", version: 1 });

    // the same slot again: 409 booking_conflict, as a CuspApiError
    const again = await unwrap(
      cusp.POST("/api/v1/{org_id}/appointments", {
        params: { path },
        body: {
          patient_uuid: fx.patient.id,
          appointment_type_uuid: fx.type.id,
          location_uuid: fx.location.id,
          provider_uuid: fx.provider.id,
          scheduled_start: slot.start,
          scheduled_end: slot.end,
        },
      }),
    ).catch((err) => err);
    expect(again).toBeInstanceOf(CuspApiError);
    expect({ status: again.status, code: again.code }).toEqual({ status: 409, code: "booking_conflict" });
  });

  test("the event stream yields the typed envelope of a write, and reconnects after a drop", async () => {
    const abort = new AbortController();
    const opens: { reconnected: boolean; lastEventId: string | undefined }[] = [];
    // the first connection ends at once (as a dropped one would); the client reconnects to the service
    let streams = 0;
    const dropping = createCuspClient({
      baseUrl: server.base,
      fetch: (request) =>
        new URL(request.url).pathname.endsWith("/events/stream") && streams++ === 0
          ? Promise.resolve(new Response(": connected\n\n", { headers: { "content-type": "text/event-stream" } }))
          : fetch(request),
    });
    await dropping.login(ADMIN.email, ADMIN.password);
    const connected = waitFor(() => opens.some((o) => o.reconnected), { timeoutMs: 10_000, what: "the stream to reconnect" });
    const stream = dropping.events(fx.orgId, { signal: abort.signal, retryMs: 20, onOpen: (info) => opens.push(info) });
    const first = stream.next();
    await connected;
    expect(opens).toEqual([
      { reconnected: false, lastEventId: undefined },
      { reconnected: true, lastEventId: undefined },
    ]);

    const appt = await unwrap(
      cusp.POST("/api/v1/{org_id}/appointments", {
        params: { path: { org_id: fx.orgId } },
        body: {
          patient_uuid: fx.patient.id,
          appointment_type_uuid: fx.type.id,
          location_uuid: fx.location.id,
          provider_uuid: fx.provider.id,
          scheduled_start: `${fx.date}T10:00:00`,
          scheduled_end: `${fx.date}T10:45:00`,
        },
      }),
    );
    const event: CuspEvent = (await first).value!;
    expect(event).toMatchObject({
      type: "appointment.created",
      org_id: fx.orgId,
      practice_id: fx.location.id,
      resource_type: "appointment",
      resource_id: appt.id,
      data: { id: appt.id, patient_id: fx.patient.id, provider_id: fx.provider.id, appointment_type_id: fx.type.id, status: "scheduled" },
    });
    expect(event.id).toEqual(expect.any(String));
    expect(Number.isNaN(Date.parse(event.occurred_at))).toBe(false);
    abort.abort();
    expect(await stream.next()).toEqual({ done: true, value: undefined });
    expect(streams).toBe(2);
  });

  test("paginate yields every item of a list across pages, each once", async () => {
    const org = await unwrap(cusp.POST("/api/v1/admin/orgs", { body: { name: "Paging Dental", slug: `paging-${Date.now().toString(36)}` } }));
    const path = { org_id: org.id };
    const created = new Set<string>();
    for (let i = 0; i < 23; i++) {
      const p = await unwrap(cusp.POST("/api/v1/{org_id}/patients", { params: { path }, body: { first_name: `Page${i}`, last_name: "Turner" } }));
      created.add(p.id);
    }
    const from = sent.length;
    const seen: string[] = [];
    for await (const patient of cusp.paginate("/api/v1/{org_id}/patients", { params: { path, query: { page_size: 5 } } })) {
      expect(patient.last_name).toBe("Turner");
      seen.push(patient.id);
    }
    expect(seen).toHaveLength(23);
    expect(new Set(seen)).toEqual(created);
    // five pages of at most five, and no sixth request
    const pages = sent
      .slice(from)
      .filter((l) => l.startsWith(`GET /api/v1/${org.id}/patients`))
      .map((l) => new URLSearchParams(l.split(" ")[1]!.split("?")[1]).get("page"));
    expect(pages).toEqual(["1", "2", "3", "4", "5"]);
  });

  test("an Idempotency-Key makes a repeated POST replay the first answer: one record", async () => {
    const path = { org_id: fx.orgId };
    const headers = idempotencyKey();
    const body = { first_name: "Ida", last_name: "Empotent", date_of_birth: "1990-01-02" };
    const first = await cusp.POST("/api/v1/{org_id}/patients", { params: { path }, body, headers });
    const second = await cusp.POST("/api/v1/{org_id}/patients", { params: { path }, body, headers });
    expect([first.response.status, second.response.status]).toEqual([201, 201]);
    expect([isReplay(first.response), isReplay(second.response)]).toEqual([false, true]);
    expect(second.data).toEqual(first.data!);
    const listed = await unwrap(cusp.GET("/api/v1/{org_id}/patients", { params: { path, query: { search: "empotent" } } }));
    expect(listed.items.map((p) => p.id)).toEqual([first.data!.id]);
    // the same key with another body is refused
    const other = await unwrap(cusp.POST("/api/v1/{org_id}/patients", { params: { path }, body: { ...body, first_name: "Other" }, headers })).catch((e) => e);
    expect({ status: other.status, code: other.code }).toEqual({ status: 409, code: "idempotency_conflict" });
  });

  test("an expired access token is refreshed before the request, without a 401", async () => {
    const log: string[] = [];
    const client = createCuspClient({ baseUrl: server.base, fetch: logged(log) });
    await client.login(ADMIN.email, ADMIN.password);
    const before = client.session()!;
    expect(before.expires_in).toBe(TOKEN_TTL_SECONDS);
    await waitFor(() => Date.now() > before.expires_at, { timeoutMs: 5_000, what: "the access token to expire" });
    // the service refuses the old token now
    const stale = await fetch(`${server.base}/api/v1/auth/me/orgs`, { headers: { authorization: `Bearer ${before.access_token}` } });
    expect(stale.status).toBe(401);

    const me = await unwrap(client.GET("/api/v1/auth/me/orgs"));
    expect(me.is_platform_admin).toBe(true);
    expect(log).toEqual(["POST /api/v1/auth/login 200", "POST /api/v1/auth/refresh 200", "GET /api/v1/auth/me/orgs 200"]);
    const after = client.session()!;
    expect(after.access_token).not.toBe(before.access_token);
    expect(after.refresh_token).not.toBe(before.refresh_token);
  });

  test("a rejected access token is refreshed once for concurrent requests, which are then sent again (bodies too)", async () => {
    const log: string[] = [];
    const sessions: (Session | null)[] = [];
    const client = createCuspClient({ baseUrl: server.base, fetch: logged(log), onSession: (s) => sessions.push(s) });
    const tokens = await client.login(ADMIN.email, ADMIN.password);
    client.setSession({ ...tokens, access_token: "revoked.or.tampered" });
    const path = { org_id: fx.orgId };
    const [a, b, c, created] = await Promise.all([
      unwrap(client.GET("/api/v1/auth/me/orgs")),
      unwrap(client.GET("/api/v1/{org_id}/locations", { params: { path } })),
      unwrap(client.GET("/api/v1/{org_id}/providers", { params: { path } })),
      unwrap(client.POST("/api/v1/{org_id}/patients", { params: { path }, body: { first_name: "Rhea", last_name: "Tried-Twice" } })),
    ]);
    expect(a.is_platform_admin).toBe(true);
    expect(b.items.map((l) => l.id)).toEqual([fx.location.id]);
    expect(c.items.map((p) => p.id)).toEqual([fx.provider.id]);
    expect(created.last_name).toBe("Tried-Twice");
    expect(log.filter((l) => l.includes("/auth/refresh"))).toEqual(["POST /api/v1/auth/refresh 200"]);
    expect(log.filter((l) => l.startsWith("POST /api/v1/") && l.endsWith("/patients 401"))).toHaveLength(1);
    expect(log.filter((l) => l.startsWith("POST /api/v1/") && l.endsWith("/patients 201"))).toHaveLength(1);
    expect(log.filter((l) => l.endsWith(" 401"))).toHaveLength(4);
    const listed = await unwrap(client.GET("/api/v1/{org_id}/patients", { params: { path, query: { search: "tried-twice" } } }));
    expect(listed.total).toBe(1);
    expect(sessions.map((s) => s?.access_token)).toEqual([tokens.access_token, "revoked.or.tampered", client.session()!.access_token]);

    // a refresh token the service refuses ends the session: the 401 comes back and the tokens are dropped
    client.setSession({ ...tokens, access_token: "revoked", refresh_token: "unknown" });
    const refused = await unwrap(client.GET("/api/v1/auth/me/orgs")).catch((e) => e);
    expect(refused).toBeInstanceOf(CuspApiError);
    expect(refused.status).toBe(401);
    expect(client.session()).toBeNull();
    expect(sessions.at(-1)).toBeNull();
  });

  test("logout ends the session on the service", async () => {
    const client = createCuspClient({ baseUrl: server.base });
    const tokens = await client.login(ADMIN.email, ADMIN.password);
    await client.logout();
    expect(client.session()).toBeNull();
    const refresh = await fetch(`${server.base}/api/v1/auth/refresh`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ refresh_token: tokens.refresh_token }),
    });
    expect(refresh.status).toBe(401);
  });
});

describe("read-your-writes at edge regions", () => {
  // The client alone: a stand-in service answers writes with a replication position, as a primary
  // does for an org on a replicated shard (tests/platform/edge-regions.test.ts runs the real one).
  const orgA = "0190f1a2-0000-7000-8000-00000000000a";
  const orgB = "0190f1a2-0000-7000-8000-00000000000b";
  function service(positions: number[]) {
    const seen: { method: string; path: string; position: string | null }[] = [];
    const fetch = async (request: Request) => {
      const path = new URL(request.url).pathname;
      seen.push({ method: request.method, path, position: request.headers.get("cusp-replication-position") });
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (request.method !== "GET") headers["cusp-replication-position"] = String(positions.shift());
      return new Response(JSON.stringify({ id: "x", name: "n" }), { status: request.method === "POST" ? 201 : 200, headers });
    };
    return { seen, fetch };
  }

  test("a write's position goes with the next requests to that org only, and only ever rises", async () => {
    const svc = service([7, 5]);
    const client = createCuspClient({ baseUrl: "http://edge.test", token: "t", fetch: svc.fetch });
    const locations = (org: string) => ({ params: { path: { org_id: org } } });
    await client.GET("/api/v1/{org_id}/locations", locations(orgA));
    await client.POST("/api/v1/{org_id}/locations", { ...locations(orgA), body: { name: "A", timezone: "UTC" } });
    await client.GET("/api/v1/{org_id}/locations", locations(orgA));
    await client.GET("/api/v1/{org_id}/locations", locations(orgB));
    // a later write answering a lower position (another region's older replica cannot, but a retry could) keeps 7
    await client.POST("/api/v1/{org_id}/locations", { ...locations(orgA), body: { name: "B", timezone: "UTC" } });
    await client.GET("/api/v1/{org_id}/locations", locations(orgA));
    expect(svc.seen).toEqual([
      { method: "GET", path: `/api/v1/${orgA}/locations`, position: null },
      { method: "POST", path: `/api/v1/${orgA}/locations`, position: null },
      { method: "GET", path: `/api/v1/${orgA}/locations`, position: "7" },
      { method: "GET", path: `/api/v1/${orgB}/locations`, position: null },
      { method: "POST", path: `/api/v1/${orgA}/locations`, position: "7" },
      { method: "GET", path: `/api/v1/${orgA}/locations`, position: "7" },
    ]);
  });

  test("readYourWrites: false sends no position", async () => {
    const svc = service([3]);
    const client = createCuspClient({ baseUrl: "http://edge.test", token: "t", fetch: svc.fetch, readYourWrites: false });
    await client.POST("/api/v1/{org_id}/locations", { params: { path: { org_id: orgA } }, body: { name: "A", timezone: "UTC" } });
    await client.GET("/api/v1/{org_id}/locations", { params: { path: { org_id: orgA } } });
    expect(svc.seen.map((s) => s.position)).toEqual([null, null]);
  });
});
