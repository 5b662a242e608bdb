import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { smartLists } from "@db/tenant/revenue";
import { run } from "@/platform/db/work";
import { systemActor } from "@/platform/auth/actor";
import { auditOf, unique, type TestApp } from "@tests/helpers";
import { orgDb } from "@tests/domains/patients/record/fixtures";
import { revenueListsDrift } from "@/domains/revenue/lists/drift.job";
import { SOURCE_VERSION } from "@/domains/revenue/fields/registry";
import { definedJob } from "@/platform/queue/jobs";
import { JOBS } from "@workers/registry";
import { handlerOf } from "@tests/support/jobs";
import { byLastName, revenueWorld, storedList } from "./fixtures";

let w: Awaited<ReturnType<typeof revenueWorld>>;
let t: TestApp;
let L: string;

beforeAll(async () => {
  w = await revenueWorld();
  t = w.t;
  L = `${w.A}/lists`;
});
afterAll(() => t.close());

const RETIRED = { groups: [{ conditions: [{ field: "retired_field", operator: "eq", value: 1 }] }] };
const WRONG_OP = { groups: [{ conditions: [{ field: "has_email", operator: "contains", value: "x" }] }] };

async function make(body: Record<string, unknown> = {}) {
  const r = await t.request("POST", L, {
    token: w.writer.token,
    body: { name: unique("List"), list_type: "dynamic", scope: "organization", filter_definition: byLastName("Drift"), ...body },
  });
  if (r.status !== 201) throw new Error(r.text);
  return r.body;
}
/** What a deploy that retired a field leaves behind: the stored filter names something the registry no longer has. */
async function storeFilter(orgId: string, id: string, filter: unknown) {
  const db = await orgDb(t, orgId);
  await db.write((tx) =>
    run(
      tx
        .update(smartLists)
        .set({ filter_definition: filter as any })
        .where(eq(smartLists.id, id)),
    ),
  );
}
async function runJob() {
  const { default: handler } = await handlerOf(revenueListsDrift);
  const actor = systemActor(revenueListsDrift.id);
  return handler({
    rt: t.rt,
    payload: {},
    actor,
    causedBy: actor,
    orgId: null,
    requestId: null,
    job: { id: "test", name: revenueListsDrift.id, retryCount: 0 },
    logger: t.rt.logger,
  });
}

describe("revenue.lists.drift", () => {
  test("registered daily with missed once", () => {
    expect(definedJob("revenue.lists.drift")).toBe(revenueListsDrift);
    expect(JOBS.map((j) => j.definition)).toContain(revenueListsDrift);
    expect(revenueListsDrift).toMatchObject({ cron: "41 5 * * *", missed: "once" });
  });

  test("flags lists whose filter no longer compiles (retired field, operator no longer allowed) without changing the filter; idempotent; clears when it compiles again", async () => {
    const good = await make();
    const retired = await make();
    const wrongOp = await make();
    const archived = await make();
    const stat = await t.request("POST", L, { token: w.writer.token, body: { name: unique("S"), list_type: "static", scope: "organization" } });
    await storeFilter(w.orgA, retired.id, RETIRED);
    await storeFilter(w.orgA, wrongOp.id, WRONG_OP);
    await storeFilter(w.orgA, archived.id, RETIRED);
    await t.request("POST", `${L}/${archived.id}/archive?base_version=1`, { token: w.writer.token });
    // another org's broken list is flagged by the same run
    const b = await t.request("POST", `${w.B}/lists`, {
      token: w.writerB.token,
      body: { name: unique("B"), list_type: "dynamic", scope: "organization", filter_definition: byLastName("X") },
    });
    await storeFilter(w.orgB, b.body.id, RETIRED);

    const first = await runJob();
    expect(first).toMatchObject({ lists_flagged: 3, lists_cleared: 0, source_version: SOURCE_VERSION, orgs_failed: 0 });

    const r = (await t.request("GET", `${L}/${retired.id}`, { token: w.reader.token })).body;
    expect(r).toMatchObject({ needs_review: true, filter_definition: RETIRED, version: 2, source_version: SOURCE_VERSION });
    expect(r.review_reason).toContain('Unknown field "retired_field"');
    expect(r.review_reason).toContain("filter_definition.groups.0.conditions.0.field");
    const o = (await t.request("GET", `${L}/${wrongOp.id}`, { token: w.reader.token })).body;
    expect(o).toMatchObject({ needs_review: true, filter_definition: WRONG_OP });
    expect(o.review_reason).toContain("operators");
    expect((await t.request("GET", `${L}/${good.id}`, { token: w.reader.token })).body).toMatchObject({ needs_review: false, version: 1 });
    expect((await storedList(t, w.orgA, archived.id)).needs_review).toBe(false);
    expect((await storedList(t, w.orgA, stat.body.id)).needs_review).toBe(false);
    expect((await storedList(t, w.orgB, b.body.id)).needs_review).toBe(true);
    expect((await auditOf(t, w.orgA, retired.id)).map((a) => [a.action, a.actor_id])).toEqual([
      ["smart_list.created", w.writer.userId],
      ["smart_list.flagged_for_review", "system:revenue.lists.drift"],
    ]);
    const listed = await t.request("GET", `${L}?page_size=100`, { token: w.reader.token });
    expect(
      listed.body.items
        .filter((l: any) => l.needs_review)
        .map((l: any) => l.id)
        .sort(),
    ).toEqual([retired.id, wrongOp.id].sort());

    // a second run changes nothing
    const before = await storedList(t, w.orgA, retired.id);
    expect(await runJob()).toMatchObject({ lists_flagged: 0, lists_cleared: 0 });
    expect(await storedList(t, w.orgA, retired.id)).toEqual(before);

    // the field comes back (or the filter is fixed in the database): the flag clears on the next run
    await storeFilter(w.orgA, wrongOp.id, byLastName("Fixed"));
    expect(await runJob()).toMatchObject({ lists_flagged: 0, lists_cleared: 1 });
    expect(await storedList(t, w.orgA, wrongOp.id)).toMatchObject({ needs_review: false, review_reason: null });

    // editing the filter through PATCH clears the flag and records the registry version
    const fixed = await t.request("PATCH", `${L}/${retired.id}`, { token: w.writer.token, body: { base_version: 2, filter_definition: byLastName("New") } });
    expect(fixed.body).toMatchObject({ needs_review: false, review_reason: null, source_version: SOURCE_VERSION, version: 3 });
  });
});
