// Runs fuzz requests against the fixture one at a time: before each, the
// stores' state; after it, the oracles; from every 2xx, what it teaches (ids,
// versions, values). Collects the numbers the summary prints.
import { Rng } from "./rng";
import { startFixture, type Fixture } from "./fixture";
import { TIME_LIMIT_MS, check, type Answer, type Finding } from "./oracles";
import { RequestBuilder } from "./builder";
import { requirement, type FuzzRequest } from "./request";
import { tenantParam, type Operation } from "./spec";

export type Failure = { req: FuzzRequest; answer: Answer; findings: Finding[] };

export type RunOptions = {
  seed: number;
  requests: number;
  /** Only operations whose key matches (e.g. /patients/); default all. */
  only?: RegExp;
  /** Called every `every` requests with the count done. */
  progress?: (done: number) => void;
};

export type Stats = {
  seed: number;
  requests: number;
  seedRequests: number;
  ms: number;
  perOperation: Map<string, { n: number; statuses: Map<number, number> }>;
  statuses: Map<number, number>;
  mutations: Map<string, number>;
  slowest: { ms: number; line: string }[];
  failures: Failure[];
  operations: number;
  reachedHandlers: number;
  /** Unmutated (valid-looking) requests, and how many of them were answered 2xx. */
  valid: { n: number; ok: number };
  /** Answers over the time limit only while the machine itself ran slow (not failures). */
  overloaded: string[];
};

const HANG_MS = 15_000;

/**
 * A fixed piece of CPU work: timed at start-up and again after an answer over
 * the time limit, it tells a slow service from a machine that is busy with
 * something else (the answer's time is divided by how much slower it runs).
 */
function calibrationMs(): number {
  const data = new Uint8Array(256 * 1024).fill(7);
  const start = performance.now();
  for (let i = 0; i < 2500; i++) Bun.hash(data);
  return performance.now() - start;
}
const bestOf = (n: number) => Math.min(...Array.from({ length: n }, calibrationMs));

/** The seed of request `i` of a run: each request draws from its own generator. */
const requestSeed = (seed: number, i: number) => (Math.imul(seed ^ 0x5bd1e995, 0x9e3779b1) + Math.imul(i + 1, 0x85ebca6b)) >>> 0;

export class Fuzzer {
  private readonly builder: RequestBuilder;
  readonly stats: Stats;
  private baselineMs: number;

  private constructor(
    readonly fx: Fixture,
    seed: number,
  ) {
    this.builder = new RequestBuilder(fx.world);
    this.stats = {
      seed,
      requests: 0,
      seedRequests: 0,
      ms: 0,
      perOperation: new Map(),
      statuses: new Map(),
      mutations: new Map(),
      slowest: [],
      failures: [],
      operations: fx.world.spec.operations.length,
      reachedHandlers: 0,
      valid: { n: 0, ok: 0 },
      overloaded: [],
    };
    this.baselineMs = bestOf(5);
  }

  static async start(seed: number): Promise<Fuzzer> {
    const f = new Fuzzer(await startFixture(), seed);
    await f.populate(new Rng(seed ^ 0x51ed));
    return f;
  }

  close() {
    return this.fx.close();
  }

  /** Sends one request with every check around it. */
  async send(req: FuzzRequest): Promise<Answer> {
    const { watch, world } = this.fx;
    const before = watch.before();
    const started = performance.now();
    let answer: Answer;
    try {
      answer = await withTimeout(this.handle(req, started), HANG_MS);
    } catch (err) {
      answer = { status: 599, headers: new Headers(), text: `no answer: ${(err as Error).message}`, ms: performance.now() - started };
    }
    const foreignCreated = new Set<string>();
    for (const o of world.orgs) if (o.key !== req.scope) for (const id of world.pools.createdIn(o.key)) foreignCreated.add(id);
    let findings = check(req, answer, { foreignCreated });
    if (findings.some((f) => f.oracle === "slow")) {
      // over the limit: was the service slow, or the whole machine (other processes on the same cores)?
      const factor = Math.max(1, bestOf(3) / this.baselineMs);
      if (answer.ms / factor <= TIME_LIMIT_MS) {
        findings = findings.filter((f) => f.oracle !== "slow");
        this.stats.overloaded.push(`${describe(req, answer)} while the machine ran ${factor.toFixed(1)}× slower`);
      }
    }
    if ((answer.status >= 400 && answer.status < 500) || req.expect.replay) {
      const changed = watch.changedBy(before);
      if (changed.length) findings.push({ oracle: req.expect.replay ? "replay stored data" : "refusal stored data", message: changed.join("; ") });
    }
    // (an all-blank key reaches the service as no key at all: header values are trimmed)
    const key = req.headers["idempotency-key"]?.trim();
    // (the platform administrator's only: a member's keys may change, and the permission check comes before a replay)
    if (key && req.method === "POST" && answer.status >= 200 && answer.status < 300 && !req.expect.replay && req.credential === "admin") {
      const list = world.idempotent.get(req.op.key) ?? [];
      if (!list.some((r) => r.key === key && r.credential === req.credential && r.scope === req.scope)) {
        list.push({
          url: req.url,
          key,
          body: req.body,
          headers: { ...req.headers },
          credential: req.credential,
          scope: req.scope,
          status: answer.status,
          text: answer.text,
          index: req.index,
        });
        world.idempotent.set(req.op.key, list.slice(-5));
      }
    }
    this.record(req, answer, findings);
    if (answer.status >= 200 && answer.status < 300 && !req.op.streaming) {
      let body: unknown;
      try {
        body = answer.text ? JSON.parse(answer.text) : undefined;
      } catch {
        body = undefined;
      }
      if (req.scope !== "nowhere") world.pools.learn(req.scope, req.op, req.params, answer.status, body);
    }
    // a fuzzed logout or refresh-token reuse may end the fixture's own sessions: log in again
    if (answer.status === 401 && world.principals[req.credential] && !requirement(req.expect, req.credential).allowed) {
      if (!(await this.fx.relogin(req.credential))) delete world.principals[req.credential];
    }
    // (a logout answers 2xx; a replayed refresh token answers 401 and ends its whole family)
    if (!req.op.tenant && req.method === "POST" && (req.op.public || (answer.status >= 200 && answer.status < 300))) await this.probeSessions();
    return answer;
  }

  /**
   * Checks each fixture caller's session after a platform POST (a logout, a
   * refresh) with the document's own "who am I" read (an authenticated GET
   * without parameters), and logs in again where it ended.
   */
  private async probeSessions() {
    const { world, app } = this.fx;
    const probe = world.spec.operations.find(
      (o) => o.method === "GET" && !o.public && !o.tenant && o.pathParams.length === 0 && !o.query.some((q) => q.required),
    );
    if (!probe) return;
    for (const [who, p] of Object.entries(world.principals)) {
      const res = await app.handle(new Request(`http://localhost${probe.path}`, { headers: { authorization: `Bearer ${p.token}` } }));
      await res.arrayBuffer();
      if (res.status === 401 && !(await this.fx.relogin(who))) delete world.principals[who];
    }
  }

  private async handle(req: FuzzRequest, started: number): Promise<Answer> {
    const init: RequestInit = { method: req.method, headers: req.headers };
    if (req.body !== undefined && req.method !== "GET" && req.method !== "HEAD") init.body = req.body;
    const res = await this.fx.app.handle(new Request(`http://localhost${req.url}`, init));
    let text = "";
    if ((res.headers.get("content-type") ?? "").includes("text/event-stream")) await res.body?.cancel();
    else text = await res.text();
    return { status: res.status, headers: res.headers, text, ms: performance.now() - started };
  }

  private record(req: FuzzRequest, a: Answer, findings: Finding[]) {
    const s = this.stats;
    if (req.phase === "seed") s.seedRequests++;
    else {
      s.requests++;
      s.ms += a.ms;
      let per = s.perOperation.get(req.op.key);
      if (!per) s.perOperation.set(req.op.key, (per = { n: 0, statuses: new Map() }));
      per.n++;
      per.statuses.set(a.status, (per.statuses.get(a.status) ?? 0) + 1);
      s.statuses.set(a.status, (s.statuses.get(a.status) ?? 0) + 1);
      for (const m of req.mutations.length ? req.mutations : ["(valid)"]) {
        const kind = m.split(/[:=(]| at | \d/)[0]!.trim();
        s.mutations.set(kind, (s.mutations.get(kind) ?? 0) + 1);
      }
      // past validation: a 2xx, or a refusal the handler gave (not 401/415/422/413 from the plumbing)
      if ((a.status >= 200 && a.status < 300) || [403, 404, 409].includes(a.status)) s.reachedHandlers++;
      if (!req.mutations.length) {
        s.valid.n++;
        if (a.status >= 200 && a.status < 300) s.valid.ok++;
      }
      s.slowest.push({ ms: a.ms, line: describe(req, a) });
      s.slowest.sort((x, y) => y.ms - x.ms);
      if (s.slowest.length > 10) s.slowest.length = 10;
    }
    if (findings.length) s.failures.push({ req, answer: a, findings });
  }

  /**
   * Learns the fixture's records (every list, in each org and on the platform),
   * then creates more through every create operation, from the document alone.
   */
  private async populate(rng: Rng) {
    const { world } = this.fx;
    const ops = world.spec.operations;
    const lists = ops.filter((o) => o.method === "GET" && !o.streaming && returnsList(o));
    // records others refer to first: fewer path parameters, then fewer required references
    const references = (o: Operation) => {
      const body = o.body ? world.spec.deref(o.body.schema) : {};
      return o.pathParams.length * 10 + ((body.required as string[] | undefined) ?? []).filter((k) => /_(uuid|id)s?$/.test(k)).length;
    };
    const creates = ops.filter((o) => o.tenant && (o.method === "POST" || o.method === "PUT") && o.creates).sort((a, b) => references(a) - references(b));
    const discover = async (orgKey: string | undefined) => {
      for (const op of lists) {
        if (!!orgKey !== op.tenant) continue;
        await this.send(this.builder.valid(rng, op, "seed", orgKey, 0));
      }
    };
    await discover(undefined);
    // the first org gets two of each record, the other one (whose ids must stay out of reach) one
    for (const [org, rounds] of [
      [world.orgs[0]!.key, 2],
      [world.orgs[1]!.key, 1],
    ] as const) {
      await discover(org);
      for (let round = 0; round < rounds; round++) {
        for (const op of creates) {
          for (let attempt = 0; attempt < 3; attempt++) {
            const a = await this.send(this.builder.valid(rng, op, "seed", org, attempt === 0 ? 0.3 : 0.6));
            if (a.status >= 200 && a.status < 300) break;
          }
        }
      }
      // (created records are learned from their answers; the lists add what lives under them)
      await discover(org);
    }
  }

  /** `n` fuzz requests over every operation in turn (shuffled), each from its own seeded generator. */
  async run(opts: RunOptions) {
    const { world } = this.fx;
    const order = new Rng(opts.seed).shuffle(world.spec.operations.filter((o) => !opts.only || opts.only.test(o.key)));
    if (!order.length) throw new Error("no operation matches");
    for (let i = 0; i < opts.requests; i++) {
      const op = order[i % order.length]!;
      let req: FuzzRequest;
      try {
        req = this.builder.fuzz(new Rng(requestSeed(opts.seed, i)), op);
      } catch (err) {
        // a bug of the fuzzer's own: stop, naming the request so it can be reproduced
        throw new Error(`the fuzzer could not build request #${i} for ${op.key} (seed ${opts.seed}): ${(err as Error).stack}`);
      }
      req.index = i;
      await this.send(req);
      if (opts.progress && (i + 1) % 1000 === 0) opts.progress(i + 1);
    }
  }
}

function returnsList(op: Operation): boolean {
  const s = op.success;
  return !!s && (s.type === "array" || !!s.properties?.items);
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    }),
  ]);
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s);

/** One line naming a request and its answer. */
export function describe(req: FuzzRequest, a: Answer): string {
  return `#${req.index} ${req.method} ${clip(req.url, 160)} -> ${a.status} in ${Math.round(a.ms)} ms`;
}

/** What to print for a failure: enough to replay it by hand or by seed. */
export function explain(f: Failure, seed: number): string {
  const { req, answer } = f;
  const lines = [
    `${f.findings.map((x) => `[${x.oracle}] ${x.message}`).join("\n  ")}`,
    `  request #${req.index} (${req.phase}, seed ${seed}): ${req.method} ${clip(req.url, 300)}`,
    `  operation: ${req.op.key}; credential: ${req.credential}; scope: ${req.scope}${tenantParam(req.op) ? "" : " (platform)"}`,
    `  mutations: ${req.mutations.length ? req.mutations.join("; ") : "(none: a valid-looking request)"}`,
    `  headers: ${clip(JSON.stringify(Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, k === "authorization" ? clip(v, 40) : clip(v, 80)]))), 300)}`,
    `  body: ${req.body === undefined ? "(none)" : (req.bodyNote ?? "") + " " + clip(JSON.stringify(req.body), 300)}`,
    `  answer: ${answer.status} in ${Math.round(answer.ms)} ms: ${clip(answer.text, 300)}`,
  ];
  return lines.join("\n");
}

/** A failure's cause: its oracle and message with the particulars (ids, numbers, boundaries) taken out. */
export function causeOf(oracle: string, message: string): string {
  const general = message
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, "{id}")
    .replace(/boundary=[^ ;]+/g, "boundary=…")
    .replace(/\d+/g, "N");
  return `${oracle}: ${general.slice(0, 140)}`;
}

/** Failures grouped by cause; each group lists the operations it was seen on. */
export function groupFailures(failures: Failure[]): Map<string, Failure[]> {
  const groups = new Map<string, Failure[]>();
  for (const f of failures) {
    for (const finding of f.findings) {
      const key = causeOf(finding.oracle, finding.message);
      let list = groups.get(key);
      if (!list) groups.set(key, (list = []));
      if (!list.includes(f)) list.push(f);
    }
  }
  return groups;
}

/** The run's summary: requests per operation, statuses, failures with replay information, the slowest answers. */
export function summary(stats: Stats, opts: { perOperation?: boolean; maxGroups?: number } = {}): string {
  const out: string[] = [];
  const hist = [...stats.statuses].sort((a, b) => a[0] - b[0]);
  out.push(
    `fuzz: seed ${stats.seed}, ${stats.requests} requests over ${stats.perOperation.size}/${stats.operations} operations (+${stats.seedRequests} to set up) in ${(stats.ms / 1000).toFixed(1)} s of answers`,
  );
  out.push(`statuses: ${hist.map(([s, n]) => `${s}×${n}`).join("  ")}`);
  out.push(
    `reached a handler (2xx/403/404/409): ${stats.reachedHandlers} (${Math.round((100 * stats.reachedHandlers) / Math.max(1, stats.requests))}%); valid-looking requests answered 2xx: ${stats.valid.ok}/${stats.valid.n}`,
  );
  out.push(
    `mutations: ${[...stats.mutations]
      .sort((a, b) => b[1] - a[1])
      .map(([m, n]) => `${m}×${n}`)
      .join(", ")}`,
  );
  if (opts.perOperation) {
    out.push("per operation:");
    for (const [key, per] of [...stats.perOperation].sort((a, b) => a[0].localeCompare(b[0]))) {
      const st = [...per.statuses]
        .sort((a, b) => a[0] - b[0])
        .map(([s, n]) => `${s}×${n}`)
        .join(" ");
      out.push(`  ${String(per.n).padStart(5)}  ${key}  [${st}]`);
    }
  }
  out.push("slowest answers:");
  for (const s of stats.slowest) out.push(`  ${s.line}`);
  if (stats.overloaded.length) {
    out.push(`over ${TIME_LIMIT_MS} ms only while the machine was busy (not counted as failures):`);
    for (const line of stats.overloaded.slice(0, 10)) out.push(`  ${line}`);
  }
  const groups = groupFailures(stats.failures);
  out.push(`failures: ${stats.failures.length} requests in ${groups.size} groups`);
  let shown = 0;
  for (const [key, list] of [...groups].sort((a, b) => b[1].length - a[1].length)) {
    if (shown++ >= (opts.maxGroups ?? 50)) {
      out.push(`  … ${groups.size - shown + 1} more groups`);
      break;
    }
    const ops = [...new Set(list.map((f) => f.req.op.key))];
    const kinds = [...new Set(list.map((f) => f.req.mutations.map((m) => m.split(/[:=(]| at | \d/)[0]!.trim()).join(" + ") || "valid"))];
    out.push(`- ${list.length}× ${key}`);
    out.push(`    on ${ops.length} operations: ${ops.slice(0, 6).join(", ")}${ops.length > 6 ? ", …" : ""}`);
    out.push(`    mutations: ${kinds.slice(0, 6).join(", ")}${kinds.length > 6 ? ", …" : ""}`);
    out.push(
      explain(list[0]!, stats.seed)
        .split("\n")
        .map((l) => `    ${l}`)
        .join("\n"),
    );
  }
  return out.join("\n");
}
