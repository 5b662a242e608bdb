import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "@tests/helpers";
import { buildApp } from "@/app";
import { appointmentRows, bookingBody, bookingSetup, createOperatory, createPatient, createProvider, type Setup } from "./fixtures";

// Real HTTP: a server on a free port in this process, sharing the test runtime,
// and many simultaneous client connections racing for one slot.
let t: TestApp;
let token: string;
let orgId: string;
let s: Setup;
let server: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  t = await startTestApp();
  token = await t.adminToken();
  orgId = (await t.createOrg()).id;
  s = await bookingSetup(t, orgId);
  server = Bun.serve({ port: 0, fetch: buildApp(t.rt).fetch });
});
afterAll(async () => {
  server.stop(true);
  await t.close();
});

const post = (body: unknown) =>
  fetch(`http://127.0.0.1:${server.port}/api/v1/${orgId}/appointments`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as { id?: string; code?: string } }));

describe("concurrent booking of one slot", () => {
  test("20 simultaneous requests for one provider slot: exactly one 201, nineteen 409 booking_conflict, one row", async () => {
    // different patients and operatories: only the provider is shared
    const patients = await Promise.all(Array.from({ length: 20 }, () => createPatient(t, orgId)));
    const ops = await Promise.all(Array.from({ length: 20 }, (_, i) => createOperatory(t, orgId, s.location.id, { name: `Chair ${i}` })));
    const results = await Promise.all(
      patients.map((p, i) =>
        post(
          bookingBody(s, {
            patient_uuid: p.id,
            operatory_uuid: ops[i]!.id,
            scheduled_start: "2026-05-04T09:00:00",
            scheduled_end: "2026-05-04T10:00:00",
          }),
        ),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, ...Array(19).fill(409)]);
    expect(results.filter((r) => r.status === 409).every((r) => r.body.code === "booking_conflict")).toBe(true);
    const rows = (await appointmentRows(t, orgId)).filter((r) => r.provider_id === s.provider.id && r.start_utc === "2026-05-04T13:00:00.000Z");
    expect(rows).toHaveLength(1);
    expect(rows[0]!.id).toBe(results.find((r) => r.status === 201)!.body.id!);
  });

  test("20 simultaneous requests for one operatory with different providers and shifted windows: exactly one wins", async () => {
    const providers = await Promise.all(Array.from({ length: 20 }, () => createProvider(t, orgId)));
    const results = await Promise.all(
      providers.map((p, i) =>
        post(
          bookingBody(s, {
            provider_uuid: p.id,
            operatory_uuid: s.operatory2.id,
            scheduled_start: `2026-05-05T09:${String(i).padStart(2, "0")}:00`,
            scheduled_end: `2026-05-05T10:${String(i).padStart(2, "0")}:00`,
          }),
        ),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409 && r.body.code === "booking_conflict")).toHaveLength(19);
    expect((await appointmentRows(t, orgId)).filter((r) => r.operatory_id === s.operatory2.id)).toHaveLength(1);
  });

  test("simultaneous requests for back-to-back slots all succeed (touching ends do not overlap)", async () => {
    const provider = await createProvider(t, orgId);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        post(
          bookingBody(s, {
            provider_uuid: provider.id,
            scheduled_start: `2026-05-06T${String(8 + i).padStart(2, "0")}:00:00`,
            scheduled_end: `2026-05-06T${String(9 + i).padStart(2, "0")}:00:00`,
          }),
        ),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
  });
});
