import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, expectGuarded, twoOrgApp, type TestApp } from "@tests/helpers";

// The org's chart drawing settings (docs/odontogram/odontogram-settings.md):
// defaults at version 0 until the first change, then a versioned record.

let t: TestApp;
let admin: string;
let orgA: string;
let orgB: string;
let reader: string;
const path = (org: string) => `/api/v1/${org}/odontogram/settings`;

beforeAll(async () => {
  const w = await twoOrgApp({ reader: ["odontogram.read"] });
  ({ t, admin, orgA, orgB } = w);
  reader = w.tokens.reader;
});
afterAll(() => t.close());

describe("GET and PATCH {P}/odontogram/settings", () => {
  test("defaults before any change; the first PATCH (base_version 0) makes version 1, the next needs 1; audited", async () => {
    const first = await t.request("GET", path(orgA), { token: reader });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ tooth_numbering: "universal", version: 0, updated_at: null });
    const set = await t.request("PATCH", path(orgA), { token: admin, body: { base_version: 0, tooth_numbering: "fdi" } });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ tooth_numbering: "fdi", version: 1 });
    expect(typeof set.body.updated_at).toBe("string");
    expect((await t.request("GET", path(orgA), { token: reader })).body).toEqual(set.body);
    // the other org keeps its own defaults
    expect((await t.request("GET", path(orgB), { token: admin })).body.tooth_numbering).toBe("universal");
    const back = await t.request("PATCH", path(orgA), { token: admin, body: { base_version: 1, tooth_numbering: "universal" } });
    expect(back.body).toMatchObject({ tooth_numbering: "universal", version: 2 });
    const actions = (await auditOf(t, orgA, "odontogram")).map((a: { action: string }) => a.action);
    expect(actions).toEqual(expect.arrayContaining(["odontogram_settings.created", "odontogram_settings.updated"]));
  });

  test("409 on a stale base_version (0 once the row exists; 1 after version 2); nothing changes", async () => {
    const now = (await t.request("GET", path(orgA), { token: admin })).body;
    for (const base of [0, now.version - 1, now.version + 5]) {
      const r = await t.request("PATCH", path(orgA), { token: admin, body: { base_version: base, tooth_numbering: "fdi" } });
      expect({ base, status: r.status, code: r.body.code }).toEqual({ base, status: 409, code: "version_conflict" });
    }
    expect((await t.request("GET", path(orgA), { token: admin })).body).toEqual(now);
  });

  test("422: an unknown numbering, an unknown field, a missing or negative base_version; nothing changes", async () => {
    const now = (await t.request("GET", path(orgA), { token: admin })).body;
    const bodies: [unknown, string][] = [
      [{ base_version: now.version, tooth_numbering: "palmer" }, "tooth_numbering"],
      [{ base_version: now.version, colour: "red" }, "colour"],
      [{ tooth_numbering: "fdi" }, "base_version"],
      [{ base_version: -1 }, "base_version"],
      [{ base_version: "2", tooth_numbering: "fdi" }, "base_version"],
    ];
    for (const [body, field] of bodies) {
      const r = await t.request("PATCH", path(orgA), { token: admin, body });
      expect(r.status).toBe(422);
      expect(r.body.detail.map((d: { loc: string[] }) => d.loc.at(-1))).toContain(field);
    }
    expect((await t.request("GET", path(orgA), { token: admin })).body).toEqual(now);
  });

  test("the guard: odontogram.read to read, odontogram.write to change", async () => {
    await expectGuarded(t, orgA, orgB, "GET", path(orgA), "odontogram.read");
    const now = (await t.request("GET", path(orgA), { token: admin })).body;
    const writer = await expectGuarded(t, orgA, orgB, "PATCH", path(orgA), "odontogram.write", { base_version: now.version });
    const r = await t.request("PATCH", path(orgA), { token: writer, body: { base_version: now.version, tooth_numbering: "fdi" } });
    expect(r.status).toBe(200);
    expect(r.body.tooth_numbering).toBe("fdi");
  });
});
