import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chartApp, insertProvider, MISSING, type ChartApp } from "./fixtures";

let m: ChartApp;
let patientId: string;
let providerId: string;
const ids: Record<string, string> = {};

// One patient with a small chart; each filter is checked against it.
beforeAll(async () => {
  m = await chartApp();
  patientId = (await m.createPatient()).id;
  providerId = await insertProvider(m.t, m.orgId, { first_name: "Ada", last_name: "Molar" });
  ids.fill = (await m.chart(patientId, "D2391", { tooth_number: "3", surfaces: "O", date_service: "2024-01-10", provider_uuid: providerId })).id;
  ids.crown = (await m.chart(patientId, "D2740", { tooth_number: "3", date_service: "2024-02-10" })).id;
  ids.exam = (await m.chart(patientId, "D0150", { status: "complete", date_service: "2024-03-10", provider_uuid: providerId })).id;
  ids.srp = (await m.chart(patientId, "D4341", { quadrant: "UR", status: "complete", date_service: "2024-04-10", do_not_bill_insurance: true })).id;
  ids.cash = (await m.chart(patientId, "D1110", { status: "complete", date_service: "2024-05-10", billing_order_code: "N" })).id;
  ids.old = (await m.chart(patientId, "D2750", { tooth_number: "14", status: "existing_other", date_service: "2020-01-01" })).id;
  ids.gone = (await m.chart(patientId, "D0220", { tooth_number: "19", date_service: "2024-06-10" })).id;
  await m.t.request("DELETE", `${m.procById(ids.gone)}?base_version=1`, { token: m.token });
  // another patient's chart never shows up
  await m.chart((await m.createPatient()).id, "D2391", { tooth_number: "3", surfaces: "O" });
});
afterAll(() => m.t.close());

const query = async (q: string) => {
  const r = await m.t.request("GET", `${m.procPath(patientId)}${q ? `?${q}` : ""}`, { token: m.token });
  expect(r.status).toBe(200);
  return r.body;
};
const names = (body: { items: { id: string }[] }) => body.items.map((i) => Object.keys(ids).find((k) => ids[k] === i.id));

describe("list filters", () => {
  test.each([
    ["", ["old", "fill", "crown", "exam", "srp", "cash"]],
    ["include_deleted=true", ["old", "fill", "crown", "exam", "srp", "cash", "gone"]],
    ["include_deleted=false", ["old", "fill", "crown", "exam", "srp", "cash"]],
    ["status=complete", ["exam", "srp", "cash"]],
    ["status=treatment_planned,existing_other", ["old", "fill", "crown"]],
    ["status=treatment_planned&status=complete", ["fill", "crown", "exam", "srp", "cash"]],
    ["tooth_number=3", ["fill", "crown"]],
    ["tooth_number=14", ["old"]],
    ["date_from=2024-02-10", ["crown", "exam", "srp", "cash"]],
    ["date_to=2024-02-10", ["old", "fill", "crown"]],
    ["date_from=2024-02-01&date_to=2024-03-31", ["crown", "exam"]],
    [`provider_uuid=${"PROVIDER"}`, ["fill", "exam"]],
    ["procedure_code=D27", ["old", "crown"]],
    ["procedure_code=d2", ["old", "fill", "crown"]],
    ["procedure_code=D2391", ["fill"]],
    ["procedure_code=X", []],
    ["treatment_area=surface", ["fill"]],
    ["treatment_area=tooth", ["old", "crown"]],
    ["treatment_area=quadrant", ["srp"]],
    ["treatment_area=mouth", ["exam", "cash"]],
    ["billable=true", ["exam"]],
    ["billable=false", ["old", "fill", "crown", "srp", "cash"]],
    ["do_not_bill_insurance=true", ["srp"]],
    ["billing_order_code=N", ["cash"]],
    ["billing_order_code=D", ["old", "fill", "crown", "exam", "srp"]],
    ["has_active_claim=true", []],
    ["has_active_claim=false", ["old", "fill", "crown", "exam", "srp", "cash"]],
    ["status=complete&billable=true&provider_uuid=PROVIDER", ["exam"]],
  ])("?%s", async (q, expected) => {
    const body = await query(q.replace("PROVIDER", providerId));
    expect(names(body)).toEqual(expected);
    expect(body.total).toBe(expected.length);
  });

  test("deleted procedures carry deleted_at in include_deleted lists", async () => {
    const body = await query("include_deleted=true&tooth_number=19");
    expect(body.items).toHaveLength(1);
    expect(body.items[0].deleted_at).toEqual(expect.any(String));
    expect((await m.t.request("GET", m.procById(ids.gone), { token: m.token })).status).toBe(404);
  });

  test("paging: page_size default 50; page 2", async () => {
    expect(await query("")).toMatchObject({ page: 1, page_size: 50, total: 6 });
    const second = await query("page=2&page_size=4");
    expect(names(second)).toEqual(["srp", "cash"]);
    expect(second).toMatchObject({ page: 2, page_size: 4, total: 6 });
  });

  test.each([
    ["status=done", "status"],
    ["tooth_number=33", "tooth_number"],
    ["date_from=2024-13-01", "date_from"],
    ["provider_uuid=x", "provider_uuid"],
    ["treatment_area=jaw", "treatment_area"],
    ["billable=yes", "billable"],
    ["billing_order_code=Q", "billing_order_code"],
    ["include_deleted=maybe", "include_deleted"],
    ["page=0", "page"],
    ["page_size=201", "page_size"],
    ["colour=red", "colour"],
  ])("422 for ?%s", async (q, field) => {
    const r = await m.t.request("GET", `${m.procPath(patientId)}?${q}`, { token: m.token });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc.slice(0, 2)).toEqual(["query", field]);
  });

  test("404 for a missing patient", async () => {
    expect((await m.t.request("GET", m.procPath(MISSING), { token: m.token })).status).toBe(404);
  });
});
