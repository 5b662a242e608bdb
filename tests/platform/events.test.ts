import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "@tests/helpers";
import { buildApp } from "@/app";
import { eventStream } from "@/domains/system/stream";
import { withDeadline } from "@tests/support/wait";

let t: TestApp;
let token: string;
let orgId: string;

beforeAll(async () => {
  t = await startTestApp();
  token = await t.adminToken();
  orgId = (await t.createOrg()).id;
});
afterAll(() => t.close());

/** Opens the stream through the app and collects frames until `count` events arrived. */
async function openStream(path: string, headers: Record<string, string>) {
  const app = buildApp(t.rt);
  const res = await app.handle(new Request(`http://localhost${path}`, { headers }));
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  return {
    res,
    async next(predicate: (text: string) => boolean, timeoutMs = 2000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(text)) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`timed out; got: ${text}`);
        const chunk = await withDeadline(reader.read(), left, null);
        if (!chunk || chunk.done) break;
        text += decoder.decode(chunk.value);
      }
      return text;
    },
    get text() {
      return text;
    },
    close: () => reader.cancel(),
  };
}

const events = (text: string) =>
  text
    .split("\n\n")
    .filter((b) => b.startsWith("id: "))
    .map((b) => {
      const [id, ev, data] = b.split("\n");
      return { id: id!.slice(4), event: ev!.slice(7), data: JSON.parse(data!.slice(6)) };
    });

describe("event stream", () => {
  test("delivers envelopes of committed writes, after connecting only (no replay)", async () => {
    const before = (await t.request("POST", `/api/v1/${orgId}/locations`, { token, body: { name: "Before", timezone: "UTC" } })).body;
    const s = await openStream(`/api/v1/${orgId}/events/stream`, { authorization: `Bearer ${token}` });
    expect(s.res.status).toBe(200);
    expect(s.res.headers.get("content-type")).toBe("text/event-stream");
    await s.next((x) => x.includes(": connected"));
    const loc = (await t.request("POST", `/api/v1/${orgId}/locations`, { token, body: { name: "After", timezone: "UTC" } })).body;
    await t.request("PATCH", `/api/v1/${orgId}/locations/${loc.id}`, { token, body: { base_version: 1, city: "Leeds" } });
    const text = await s.next((x) => events(x).length >= 2);
    await s.close();
    const [created, updated] = events(text);
    expect(created!.event).toBe("location.created");
    expect(created!.data).toMatchObject({
      type: "location.created",
      org_id: orgId,
      practice_id: loc.id,
      resource_type: "location",
      resource_id: loc.id,
      data: { id: loc.id },
    });
    expect(created!.data.id).toBe(created!.id);
    expect(created!.data.occurred_at).toMatch(/Z$/);
    expect(updated!.data.type).toBe("location.updated");
    expect(updated!.data.data).toEqual({ id: loc.id, changed_fields: ["city"] });
    // client-safe: no free text (the city's value) travels on the stream
    expect(text).not.toContain("Leeds");
    expect(text).not.toContain(before.id);
  });

  test("practice_id forwards only that practice's events", async () => {
    const a = (await t.request("POST", `/api/v1/${orgId}/locations`, { token, body: { name: "A", timezone: "UTC" } })).body;
    const b = (await t.request("POST", `/api/v1/${orgId}/locations`, { token, body: { name: "B", timezone: "UTC" } })).body;
    const s = await openStream(`/api/v1/${orgId}/events/stream?practice_id=${b.id}`, { authorization: `Bearer ${token}` });
    await s.next((x) => x.includes(": connected"));
    await t.request("PATCH", `/api/v1/${orgId}/locations/${a.id}`, { token, body: { base_version: 1, city: "X" } });
    await t.request("PATCH", `/api/v1/${orgId}/locations/${b.id}`, { token, body: { base_version: 1, city: "Y" } });
    const text = await s.next((x) => events(x).length >= 1);
    await s.close();
    expect(events(text).map((e) => e.data.resource_id)).toEqual([b.id]);
  });

  test("a keep-alive comment goes out on the interval", async () => {
    const res = eventStream(t.rt, orgId, "", 20);
    const reader = res.body!.getReader();
    let text = "";
    while (!text.includes(": keep-alive")) text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    expect(text).toBe(": connected\n\n: keep-alive\n\n");
  });

  test("other orgs' events never reach the stream", async () => {
    const other = (await t.createOrg()).id;
    const s = await openStream(`/api/v1/${orgId}/events/stream`, { authorization: `Bearer ${token}` });
    await s.next((x) => x.includes(": connected"));
    await t.request("POST", `/api/v1/${other}/locations`, { token, body: { name: "Elsewhere", timezone: "UTC" } });
    const mine = (await t.request("POST", `/api/v1/${orgId}/locations`, { token, body: { name: "Mine", timezone: "UTC" } })).body;
    const text = await s.next((x) => events(x).length >= 1);
    await s.close();
    expect(events(text).map((e) => e.data.resource_id)).toEqual([mine.id]);
  });

  test("X-User-Id: refused in jwt mode, honoured on the stream in dev-stub mode", async () => {
    const adminId = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()).sub;
    const refused = await t.request("GET", `/api/v1/${orgId}/events/stream`, { headers: { "x-user-id": adminId } });
    expect(refused.status).toBe(401);
    const stub = await startTestApp({ DPMS_AUTH_MODE: "dev-stub" });
    try {
      const stubAdmin = JSON.parse(Buffer.from((await stub.adminToken()).split(".")[1]!, "base64url").toString()).sub;
      const org = (await stub.createOrg()).id;
      const res = await buildApp(stub.rt).handle(new Request(`http://localhost/api/v1/${org}/events/stream`, { headers: { "x-user-id": stubAdmin } }));
      expect(res.status).toBe(200);
      await res.body!.cancel();
      const other = await stub.request("GET", `/api/v1/${org}/locations`, { headers: { "x-user-id": stubAdmin } });
      expect(other.status).toBe(401);
    } finally {
      await stub.close();
    }
  });
});

describe("frames written in groups (stream.ts)", () => {
  /** The stream's raw chunks, as the HTTP layer gets them. */
  async function rawChunks(headers: Record<string, string>) {
    const res = await buildApp(t.rt).handle(new Request(`http://localhost/api/v1/${orgId}/events/stream`, { headers }));
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    return {
      read: async () => {
        const chunk = await withDeadline(reader.read(), 2000, null);
        return chunk && !chunk.done ? decoder.decode(chunk.value) : null;
      },
      close: () => reader.cancel(),
    };
  }
  const publish = (n: number, tag: string) =>
    Array.from({ length: n }, (_, i) => t.rt.events.publish(orgId, { type: "probe.sent", resource_type: "probe", resource_id: `${tag}-${i}` }));

  test("the events of one turn reach a stream as one chunk, in order", async () => {
    const s = await rawChunks({ authorization: `Bearer ${token}` });
    expect(await s.read()).toBe(": connected\n\n");
    await Promise.all(publish(5, "turn"));
    const chunk = (await s.read())!;
    expect(events(chunk).map((e) => e.data.resource_id)).toEqual(["turn-0", "turn-1", "turn-2", "turn-3", "turn-4"]);
    await s.close();
  });

  test("in a turn that runs long, what waited 10 ms goes out without waiting for its end", async () => {
    const s = await rawChunks({ authorization: `Bearer ${token}` });
    expect(await s.read()).toBe(": connected\n\n");
    // one turn: an event, 15 ms of other work, another event (which finds the first held too long)
    await publish(1, "early")[0];
    const until = performance.now() + 15;
    while (performance.now() < until) {}
    await publish(1, "late")[0];
    expect(events((await s.read())!).map((e) => e.data.resource_id)).toEqual(["early-0"]);
    expect(events((await s.read())!).map((e) => e.data.resource_id)).toEqual(["late-0"]);
    await s.close();
  });
});
