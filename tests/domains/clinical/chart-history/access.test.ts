import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createMember } from "@tests/helpers";
import { conditionsApp, READ, WRITE } from "@tests/domains/clinical/conditions/fixtures";

// Who may read the chart history, and which patients it reaches.

let m: Awaited<ReturnType<typeof conditionsApp>>;
let patientId: string;
beforeAll(async () => {
  m = await conditionsApp();
  patientId = (await m.createPatient()).id;
  await m.createCondition(patientId, { date_identified: "2024-01-01" });
});
afterAll(() => m.t.close());

const paths = (pid = patientId, org = m.orgId) => [
  `${m.P(org)}/clinical/patients/${pid}/chart/at-date?date=2024-06-01`,
  `${m.P(org)}/clinical/patients/${pid}/chart/timeline`,
];

describe("chart history access", () => {
  test("401 without a token; 403 without clinical.read (clinical.write alone is not enough); 200 with it", async () => {
    const writer = (await createMember(m.t, m.orgId, [WRITE, "patients.read"])).token;
    const reader = (await createMember(m.t, m.orgId, [READ])).token;
    for (const path of paths()) {
      const anon = await m.t.request("GET", path);
      expect([path, anon.status, anon.headers.get("www-authenticate")]).toEqual([path, 401, "Bearer"]);
      const denied = await m.t.request("GET", path, { token: writer });
      expect([path, denied.status, denied.body.code]).toEqual([path, 403, "forbidden"]);
      expect((await m.t.request("GET", path, { token: reader })).status).toBe(200);
    }
  });

  test("404 for a non-member, another org's patient through this org's path, and a missing patient; archived patients stay readable", async () => {
    const outsider = (await createMember(m.t, m.otherOrg, [READ, WRITE])).token;
    const foreign = await m.createPatient({}, m.otherOrg);
    await m.createCondition(foreign.id, { date_identified: "2024-01-01" }, m.otherOrg);
    for (const path of [...paths(), ...paths(foreign.id), ...paths("0190a1b2-0000-7000-8000-0000000000ee")]) {
      const token = path.includes(foreign.id) || path.includes("0000000000ee") ? m.token : outsider;
      const r = await m.t.request("GET", path, { token });
      expect([path, r.status, r.body.code]).toEqual([path, 404, "not_found"]);
    }
    // the other org's own path answers
    expect((await m.t.request("GET", paths(foreign.id, m.otherOrg)[0]!, { token: m.token })).body.patient_conditions).toHaveLength(1);
    const archived = await m.createPatient();
    await m.t.request("POST", `${m.P()}/patients/${archived.id}/archive`, { token: m.token });
    expect((await m.t.request("GET", paths(archived.id)[0]!, { token: m.token })).status).toBe(200);
  });

  test.each([
    ["missing date", "", ["query", "date"], "missing"],
    ["empty date", "?date=", ["query", "date"], "format"],
    ["not a date", "?date=yesterday", ["query", "date"], "format"],
    ["impossible date", "?date=2024-02-30", ["query", "date"], "format"],
    ["date with a time", "?date=2024-02-01T10:00:00Z", ["query", "date"], "format"],
    ["unknown parameter", "?date=2024-02-01&tooth=3", ["query", "tooth"], "extra_forbidden"],
  ])("at-date 422: %s", async (_name, q, loc, type) => {
    const r = await m.t.request("GET", `${m.P()}/clinical/patients/${patientId}/chart/at-date${q}`, { token: m.token });
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ loc, type });
  });

  test("timeline 422 on an unknown query parameter", async () => {
    const r = await m.t.request("GET", `${m.P()}/clinical/patients/${patientId}/chart/timeline?from=2024-01-01`, { token: m.token });
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ loc: ["query", "from"], type: "extra_forbidden" });
  });
});
