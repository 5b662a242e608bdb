import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { iamMemberWithLogin, startTestApp, type TestApp } from "@tests/helpers";

// The permission check is answered from the access cache: once a member's
// grants are compiled, a request costs no control-database read until an IAM
// write (on any instance) drops the cache. Counted, not timed.

let t: TestApp;
let P: string;
let north: string;
let south: string;
let scoped: { id: string; token: string };
let orgWide: { id: string; token: string };
let controlReads = 0;

beforeAll(async () => {
  t = await startTestApp();
  const admin = await t.adminToken();
  const org = (await t.createOrg()).id;
  P = `/api/v1/${org}`;
  north = (await t.request("POST", `${P}/locations`, { token: admin, body: { name: "North", timezone: "America/Chicago" } })).body.id;
  south = (await t.request("POST", `${P}/locations`, { token: admin, body: { name: "South", timezone: "America/Chicago" } })).body.id;
  const readers = (await t.request("POST", `${P}/iam/groups`, { token: admin, body: { name: "Location readers", permission_keys: ["locations.read"] } })).body
    .id;
  orgWide = await iamMemberWithLogin(t, `${P}/iam`, [readers]);
  scoped = await iamMemberWithLogin(t, `${P}/iam`, []);
  const a = await t.request("POST", `${P}/iam/assignments`, { token: admin, body: { user_id: scoped.id, group_uuid: readers, scope_node_uuid: north } });
  expect(a.status).toBe(201);
  const control = t.rt.control;
  const read = control.read.bind(control);
  control.read = ((work: any) => {
    controlReads++;
    return read(work);
  }) as typeof control.read;
});
afterAll(() => t.close());

async function readsOf(token: string, path: string, status: number) {
  const before = controlReads;
  const r = await t.request("GET", path, { token });
  expect(r.status).toBe(status);
  return controlReads - before;
}

describe("access cache", () => {
  test("an org-wide member: the first request compiles the grants, the next ones read nothing from the control database", async () => {
    expect(await readsOf(orgWide.token, `${P}/locations/${north}`, 200)).toBeGreaterThan(0);
    expect(await readsOf(orgWide.token, `${P}/locations/${north}`, 200)).toBe(0);
    expect(await readsOf(orgWide.token, `${P}/locations/${south}`, 200)).toBe(0);
  });

  test("a member scoped to one location: allowed and refused answers both come from the cache", async () => {
    await readsOf(scoped.token, `${P}/locations/${north}`, 200);
    expect(await readsOf(scoped.token, `${P}/locations/${north}`, 200)).toBe(0);
    expect(await readsOf(scoped.token, `${P}/locations/${south}`, 403)).toBe(0);
  });

  test("an IAM write drops the cache: the next request compiles the grants again and sees the change", async () => {
    const admin = await t.adminToken();
    const list = await t.request("GET", `${P}/iam/assignments?user_id=${scoped.id}`, { token: admin });
    const suspended = await t.request("POST", `${P}/iam/assignments/${list.body.items[0].id}/suspend`, { token: admin });
    expect(suspended.body.status).toBe("suspended");
    expect(await readsOf(scoped.token, `${P}/locations/${north}`, 403)).toBeGreaterThan(0);
    expect(await readsOf(scoped.token, `${P}/locations/${north}`, 403)).toBe(0);
  });
});
