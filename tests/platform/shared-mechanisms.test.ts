import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "@tests/helpers";
import { locations } from "@db/tenant/practice";
import { Conflict } from "@/platform/errors";
import { declareUniqueConflict, uniqueConflictOf } from "@/platform/db/constraints";
import type { Work } from "@/platform/db/work";
import type { OrgDatabase } from "@/platform/db/org-databases";
import type { AfterCommit, TenantDb } from "@/platform/records/context";
import { emit, withEventContext } from "@/platform/records/events";
import { LOCATION_NAMES } from "@/platform/records/names";
import { idsOf, namesOf, ref } from "@/platform/records/refs";
import { defineResource } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import { pageOfList } from "@/platform/records/paging";
import { checkVersion, updatedOrConflict } from "@/platform/records/versions";
import { locationRecords } from "@/domains/providers/locations/service";
import type { PendingEvent } from "@/platform/events/envelope";

let t: TestApp;
let token: string;
let orgId: string;
let db: OrgDatabase;

beforeAll(async () => {
  t = await startTestApp();
  token = await t.adminToken();
  orgId = (await t.createOrg()).id;
  const org = (await t.rt.access.org(orgId))!;
  db = await t.rt.orgDbs.get(org.id, org.shard);
});
afterAll(() => t.close());

const createLocation = async (name: string) => (await t.request("POST", `/api/v1/${orgId}/locations`, { token, body: { name, timezone: "UTC" } })).body;

describe("ids are lower-cased once", () => {
  test("a path id in upper case reaches the verb lower-cased (the guard); so does a Uuid field in a query or body", async () => {
    const loc = await createLocation("Upper");
    const got = await t.request("GET", `/api/v1/${orgId}/locations/${loc.id.toUpperCase()}`, { token });
    expect([got.status, got.body.id]).toEqual([200, loc.id]);
    const patched = await t.request("PATCH", `/api/v1/${orgId}/locations/${loc.id.toUpperCase()}`, { token, body: { base_version: 1, name: "Upper 2" } });
    expect([patched.status, patched.body.id, patched.body.version]).toEqual([200, loc.id, 2]);
    const op = await t.request("POST", `/api/v1/${orgId}/schedule/operatories`, { token, body: { name: "Op 1", location_uuid: loc.id.toUpperCase() } });
    expect([op.status, op.body.location.uuid]).toEqual([201, loc.id]);
    const listed = await t.request("GET", `/api/v1/${orgId}/schedule/operatories?location_uuid=${loc.id.toUpperCase()}`, { token });
    expect(listed.body.items.map((o: { id: string }) => o.id)).toEqual([op.body.id]);
  });
});

describe("prepared reads run on the handle they are given", () => {
  test("a prepared step asked on another database's handle is refused instead of reading this one", async () => {
    const loc = await createLocation("Mine");
    const otherId = (await t.createOrg()).id;
    const otherOrg = (await t.rt.access.org(otherId))!;
    const other = await t.rt.orgDbs.get(otherOrg.id, otherOrg.shard);
    let otherHandle: TenantDb | undefined;
    await other.read(function* (d): Work<void> {
      otherHandle = d;
    });
    expect((await db.read((d) => locationRecords.find(d, loc.id)))?.name).toBe("Mine");
    expect(() => db.read(() => locationRecords.find(otherHandle!, loc.id))).toThrow("a unit of work ran a prepared query on another database's handle");
  });
});

describe("references", () => {
  test("namesOf: one lookup for distinct non-null ids, archived records keep their names, unknown ids are left out; ref shows null for them", async () => {
    const a = await createLocation("Alpha");
    const b = await createLocation("Beta");
    await t.request("POST", `/api/v1/${orgId}/locations/${b.id}/archive`, { token });
    const unknown = "01a1fe29-0000-7000-8000-000000000001";
    const names = await db.read((d) => namesOf(d, LOCATION_NAMES, [a.id, null, a.id, undefined, b.id, unknown]));
    expect(names).toEqual(
      new Map([
        [a.id, "Alpha"],
        [b.id, "Beta"],
      ]),
    );
    expect([ref(a.id, names), ref(unknown, names), ref(null, names)]).toEqual([{ uuid: a.id, name: "Alpha" }, { uuid: unknown, name: null }, null]);
    expect(await db.read((d) => namesOf(d, LOCATION_NAMES, [null]))).toEqual(new Map());
    expect(
      idsOf(
        [
          { x: "1", y: "2" },
          { x: "1", y: null },
        ],
        (r) => r.x,
        (r) => r.y,
      ),
    ).toEqual(["1", "2"]);
    // past the short-list scan: still distinct, in first-seen order
    const many = Array.from({ length: 120 }, (_, i) => ({ x: `id-${i % 50}` }));
    expect(idsOf(many, (r) => r.x)).toEqual(Array.from({ length: 50 }, (_, i) => `id-${i}`));
  });
});

describe("versions and pages", () => {
  test("checkVersion refuses a stale base_version (undefined is not checked); updatedOrConflict refuses a compare-and-swap that matched nothing", () => {
    expect(() => checkVersion({ version: 3 }, 2)).toThrow(new Conflict("The record is at version 3; reload and retry", "version_conflict"));
    expect(() => checkVersion({ version: 3 }, 3)).not.toThrow();
    expect(() => checkVersion({ version: 3 }, undefined)).not.toThrow();
    expect(() => updatedOrConflict(undefined)).toThrow("The record has changed since base_version");
    expect(updatedOrConflict({ id: "x" })).toEqual({ id: "x" });
  });

  test("pageOfList pages a list in memory with the list's total", () => {
    expect(pageOfList(["a", "b", "c", "d", "e"], { page: 2, page_size: 2 })).toEqual({ items: ["c", "d"], page: 2, page_size: 2, total: 5 });
    expect(pageOfList(["a"], { page: 3, page_size: 2 })).toEqual({ items: [], page: 3, page_size: 2, total: 1 });
  });
});

describe("events are final once queued", () => {
  const scope = (): { after: AfterCommit } => ({ after: { events: [], audit: [], jobs: [] } });
  const event = (practice_id?: string | null): PendingEvent => ({ type: "x.y", resource_type: "x", resource_id: "1", practice_id, data: { id: "1" } });

  test("withEventContext: events inherit the practice unless they name one and get its data; the inner context wins; it ends with its work, even a failed one", () => {
    const s = scope();
    const run = <T>(w: Work<T>) => {
      let r = w.next();
      while (!r.done) r = w.next();
      return r.value;
    };
    run(
      withEventContext(
        s,
        { practiceId: "outer", data: { patient_id: "p1" } },
        (function* () {
          emit(s, event());
          emit(s, event("own"));
          yield* withEventContext(
            s,
            { practiceId: "inner", data: { chart: "c1" } },
            (function* () {
              emit(s, event());
            })(),
          );
        })(),
      ),
    );
    emit(s, event());
    expect(s.after.events.map((e) => [e.practice_id, e.data])).toEqual([
      ["outer", { id: "1", patient_id: "p1" }],
      ["own", { id: "1", patient_id: "p1" }],
      ["inner", { id: "1", patient_id: "p1", chart: "c1" }],
      [undefined, { id: "1" }],
    ]);
    expect(() =>
      run(
        withEventContext(
          s,
          { practiceId: "failing" },
          (function* () {
            throw new Error("refused");
          })(),
        ),
      ),
    ).toThrow("refused");
    expect(s.after.eventContext).toBeUndefined();
  });

  test("defineResource: eventFields name changed columns as the API does, eventAliases emit the same event under a second type", async () => {
    const renamed = defineResource<typeof locations.$inferSelect, Record<string, unknown>>({
      table: locations,
      name: "site",
      label: "Site",
      serialize: (r) => ({ ...r }),
      eventFields: { rename: { name: "title", city: null }, stripIdSuffix: true },
      eventAliases: { updated: ["touched"] },
    });
    const loc = await createLocation("Renamed");
    const ctx = (await t.rt.orgs.openOrgForJob(orgId, { actor: { type: "internal", id: "internal", display_name: "t" }, requestId: null }))!;
    const seen: { type: string; data: unknown }[] = [];
    const stop = t.rt.events.subscribe(orgId, (e) => seen.push({ type: e.type, data: e.data }));
    await withTransaction(ctx, (s) => renamed.update(s, loc.id, 1, { name: "Renamed 2", city: "Austin", state: "TX" }));
    stop();
    const changed = { id: loc.id, changed_fields: ["title", "state"] };
    expect(seen).toEqual([
      { type: "site.updated", data: changed },
      { type: "site.touched", data: changed },
    ]);
  });
});

describe("unique constraints are 409s in the error mapper", () => {
  test("a declared constraint answers its own message and code, an undeclared one a generic duplicate, wrapped or not; other errors are not conflicts", () => {
    declareUniqueConflict("widgets.code", "A widget with this code already exists", "widget_taken");
    const sqlite = (columns: string) => Object.assign(new Error(`UNIQUE constraint failed: ${columns}`), { code: "SQLITE_CONSTRAINT_UNIQUE" });
    const libsql = (columns: string) =>
      Object.assign(new Error(`SQLITE_CONSTRAINT: SQLite error: UNIQUE constraint failed: ${columns}`), {
        code: "SQLITE_CONSTRAINT",
        extendedCode: "SQLITE_CONSTRAINT_UNIQUE",
      });
    const answer = (e: unknown) => {
      const c = uniqueConflictOf(e);
      return c && [c.status, c.code, c.message];
    };
    expect(answer(sqlite("widgets.code"))).toEqual([409, "widget_taken", "A widget with this code already exists"]);
    expect(answer(libsql("widgets.code"))).toEqual([409, "widget_taken", "A widget with this code already exists"]);
    expect(answer(Object.assign(new Error("Failed query: insert ..."), { cause: sqlite("widgets.code") }))).toEqual([
      409,
      "widget_taken",
      "A widget with this code already exists",
    ]);
    expect(answer(sqlite("gadgets.code, gadgets.kind"))).toEqual([409, "duplicate", "A record with these values already exists"]);
    expect(answer(Object.assign(new Error("FOREIGN KEY constraint failed"), { code: "SQLITE_CONSTRAINT_FOREIGNKEY" }))).toBeNull();
    expect(answer(new Error("UNIQUE constraint failed: widgets.code"))).toBeNull(); // text alone is not a database error
  });
});
