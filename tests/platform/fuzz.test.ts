// The OpenAPI-driven fuzz (issue 14): a seeded run of 2,000 requests generated
// from the service's own /openapi.json, valid-looking and mutated, over every
// operation; no per-route code, so routes added later are covered as they
// appear in the document. Replay a failure with
// `npm run fuzz -- --requests 2000 --seed <seed>` (the seed is printed), or
// set FUZZ_SEED to run this test with another seed.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { idempotencyRecords, shards } from "@db/control/schema";
import { locations } from "@db/tenant/practice";
import { run } from "@/platform/db/work";
import { errorShapeProblem } from "@tests/support/fuzz/oracles";
import { Fuzzer, causeOf, groupFailures, summary } from "@tests/support/fuzz/runner";

const SEED = Number(process.env.FUZZ_SEED ?? 14_006);
const REQUESTS = 2_000;

let fuzzer: Fuzzer;
let seconds = 0;

beforeAll(async () => {
  fuzzer = await Fuzzer.start(SEED);
}, 120_000);
afterAll(() => fuzzer?.close());

describe("OpenAPI-driven fuzz", () => {
  test(`${REQUESTS} seeded requests: no 5xx, contract error shapes, nothing stored by a refusal, answers within 1 s, no other org's records`, async () => {
    const started = performance.now();
    await fuzzer.run({ seed: SEED, requests: REQUESTS });
    seconds = (performance.now() - started) / 1000;
    const s = fuzzer.stats;
    console.log(
      `fuzz: seed ${SEED}, ${s.requests} requests over ${s.perOperation.size} operations in ${seconds.toFixed(1)} s, ${s.failures.length} failing (replay: npm run fuzz -- --requests ${REQUESTS} --seed ${SEED})`,
    );
    // the summary prints each cause with a full replay of its first request; the assertion names the causes
    if (s.failures.length) console.log(summary(s, { maxGroups: 20 }));
    const causes = [...groupFailures(s.failures)].map(
      ([cause, list]) => `${list.length}× ${cause} (first: request #${list[0]!.req.index}, ${list[0]!.req.op.key})`,
    );
    expect(causes).toEqual([]);
  }, 120_000);

  test("every operation of the document was fuzzed, and many requests got past validation", () => {
    const s = fuzzer.stats;
    expect(s.perOperation.size).toBe(s.operations);
    expect(s.operations).toBeGreaterThan(250);
    // a fuzz that only ever hits validation would prove little about the handlers
    expect(s.reachedHandlers / s.requests).toBeGreaterThan(0.3);
    expect(s.valid.ok / s.valid.n).toBeGreaterThan(0.3);
  });

  test("the stored-data oracle sees a committed write in the control database and in an org database", async () => {
    const { watch, t, world } = fuzzer.fx;
    let before = watch.before();
    expect(watch.changedBy(before)).toEqual([]);
    // a write the service's own connection commits (as a handler would)
    await t.rt.control.write((tx) => run(tx.update(shards).set({ region: "fuzz-check" })));
    expect(watch.changedBy(before).join("\n")).toContain("control.shards");
    before = watch.before();
    const org = (await t.rt.access.org(world.orgs[0]!.id))!;
    const db = await t.rt.orgDbs.get(org.id, org.shard);
    await db.write((tx) => run(tx.update(locations).set({ city: "Fuzzville" })));
    expect(watch.changedBy(before).join("\n")).toContain(`${org.id}.db`);
    // a stored idempotent answer is a control write a refusal may make (the contract replays refusals too)
    before = watch.before();
    const now = new Date().toISOString();
    await t.rt.control.write((tx) =>
      run(tx.insert(idempotencyRecords).values({ scope_key: `fuzz-${now}`, request_hash: "x", status: 422, body: "", created_at: now, expires_at: now })),
    );
    expect(watch.changedBy(before)).toEqual([]);
  });

  test("the error-shape oracle holds the contract's two shapes", () => {
    const json = new Headers({ "content-type": "application/json" });
    const bearer = new Headers({ "content-type": "application/json", "www-authenticate": 'Bearer error="invalid_token"' });
    expect(errorShapeProblem(404, json, JSON.stringify({ detail: "Patient not found", code: "not_found" }))).toBeNull();
    expect(errorShapeProblem(422, json, JSON.stringify({ detail: [{ loc: ["body", "name"], msg: "Field required", type: "missing" }] }))).toBeNull();
    expect(errorShapeProblem(422, json, JSON.stringify({ detail: [{ loc: ["query", 0], msg: "x", type: "y" }], code: "invalid_transition" }))).toBeNull();
    expect(errorShapeProblem(401, bearer, JSON.stringify({ detail: "Invalid token", code: "unauthorized" }))).toBeNull();
    expect(errorShapeProblem(401, json, JSON.stringify({ detail: "Invalid token", code: "unauthorized" }))).toContain("WWW-Authenticate");
    expect(errorShapeProblem(404, json, JSON.stringify({ detail: "Not found" }))).toContain("code");
    expect(errorShapeProblem(400, json, JSON.stringify({ error: "bad" }))).toContain("detail");
    expect(errorShapeProblem(422, json, JSON.stringify({ detail: "Invalid" }))).toContain("array");
    expect(errorShapeProblem(422, json, JSON.stringify({ detail: [{ loc: ["name"], msg: "x", type: "y" }] }))).toContain("loc");
    expect(errorShapeProblem(500, new Headers({ "content-type": "text/plain" }), "Internal Server Error")).toContain("content-type");
    expect(causeOf("status", "422, expected 415 for boundary=abc123 on 0190a1b2-0000-7000-8000-000000000000")).toBe(
      "status: N, expected N for boundary=… on {id}",
    );
  });
});
