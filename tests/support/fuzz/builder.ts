// One fuzz request for one operation: a valid-looking request built from the
// operation's schemas and the ids learned so far (so most of them get past
// validation into the handlers), then, mostly, one or two mutations.
import { MUTATIONS } from "./mutations";
import type { Rng } from "./rng";
import { fits } from "./schema";
import { collectionBefore, tenantParam, type Operation } from "./spec";
import { genObject, genValue, isIdName, orderPairs, type GenContext } from "./values";
import { authenticate, bodyLimitsOf, queryValues, setQuery, type FuzzRequest, type World } from "./request";

/** Builds the requests of a run (numbering them) from the world's document and pools. */
export class RequestBuilder {
  private next = 0;
  constructor(private readonly w: World) {}

  private genContext(rng: Rng, scope: string, op: Operation, params: Record<string, string>, optional: number): GenContext {
    const { pools } = this.w;
    const last = op.pathParams[op.pathParams.length - 1];
    return {
      rng,
      deref: (s) => this.w.spec.deref(s),
      optional,
      idFor: (name) => pools.idFor(scope, name, rng) ?? (scope === "platform" ? undefined : pools.idFor("platform", name, rng)),
      seenFor: (name, s) => {
        const options = pools.seenFor(name).filter((v) => fits(v, s, (x) => this.w.spec.deref(x)));
        return options.length ? rng.pick(options) : undefined;
      },
      baseVersion: () => (last ? pools.versionOf(scope, op, params[last]) : undefined),
    };
  }

  /** A valid-looking request for `op` (no mutation): what seeding and the unmutated share of the fuzz send. */
  valid(rng: Rng, op: Operation, phase: "seed" | "fuzz", orgKey?: string, optional = 0.5): FuzzRequest {
    const w = this.w;
    const tenant = tenantParam(op);
    const org = tenant ? (w.orgs.find((o) => o.key === orgKey) ?? w.orgs[0]!) : undefined;
    const scope = org ? org.key : "platform";
    const params: Record<string, string> = {};
    // the innermost id first, then the ids it lives under (a plan, then its patient)
    for (const name of [...op.pathParams].reverse()) {
      if (name === tenant) {
        params[name] = org!.id;
        continue;
      }
      const hint = collectionBefore(op, name);
      const under = Object.values(params)
        .flatMap((id) => w.pools.parentsOf(id))
        .filter((id) => w.pools.holds(scope, name, id, hint));
      params[name] = under.length ? rng.pick(under) : this.pathValue(rng, op, scope, name);
    }
    const ctx = this.genContext(rng, scope, op, params, optional);
    const values: Record<string, unknown> = {};
    for (const p of op.query) if (p.required || rng.chance(0.3)) values[p.name] = genValue(p.name, p.schema, ctx);
    orderPairs(values, rng);
    const query: [string, string][] = [];
    for (const [name, v] of Object.entries(values)) for (const text of queryValues(v)) query.push([name, text]);
    let body: string | undefined;
    const headers: Record<string, string> = {};
    if (op.body) {
      const s = w.spec.deref(op.body.schema);
      const value = s.type === "object" || s.properties ? genObject(s, ctx) : genValue("body", s, ctx);
      body = JSON.stringify(value);
      headers["content-type"] = op.body.contentType;
    }
    const req: FuzzRequest = {
      index: this.next++,
      phase,
      op,
      method: op.method,
      url: "",
      headers,
      body,
      mutations: [],
      expect: { refuse: [], bodyRefuse: [] },
      scope,
      foreignIds: [],
      credential: op.public ? "public" : "admin",
      params,
      touched: new Set(),
    };
    setQuery(req, query);
    if (!op.public) authenticate(req, w, "admin");
    return req;
  }

  /** A path parameter: a known id of its collection (never a protected one for a write), a value seen under its name, or made up. */
  private pathValue(rng: Rng, op: Operation, scope: string, name: string): string {
    const { pools } = this.w;
    const writes = op.method !== "GET";
    for (let i = 0; i < 4; i++) {
      const id = isIdName(name) ? pools.idFor(scope, name, rng, collectionBefore(op, name)) : undefined;
      if (id && !(writes && pools.protectedIds.has(id))) return id;
      if (!isIdName(name)) {
        const seen = pools.seenFor(name).concat(pools.seenFor(name.replace(/_(num|id|uuid)$/, "_number")));
        if (seen.length && rng.chance(0.8)) return String(rng.pick(seen));
        return String(genValue(name, { type: "string", maxLength: 20 }, this.genContext(rng, scope, op, {}, 0.5)));
      }
    }
    return rng.uuid();
  }

  /** A fuzz request: valid-looking, then (mostly) one or two mutations. */
  fuzz(rng: Rng, op: Operation): FuzzRequest {
    const w = this.w;
    const orgKey = rng.chance(0.75) ? w.orgs[0]!.key : rng.pick(w.orgs).key;
    const req = this.valid(rng, op, "fuzz", orgKey, rng.pick([0.2, 0.5, 0.9]));
    // now and then the first org's own members (an administrator, a reader) instead of the platform administrator
    const members = ["member", "reader"].filter((who) => w.principals[who]);
    if (!op.public && op.tenant && req.scope === w.orgs[0]!.key && members.length && rng.chance(0.15)) authenticate(req, w, rng.pick(members));
    if (rng.chance(0.3)) return req;
    const count = rng.chance(0.75) ? 1 : 2;
    for (let i = 0; i < count; i++) {
      const applicable = MUTATIONS.filter(([, , when]) => when(req, w));
      if (!applicable.length) break;
      const [name, apply] = rng.weighted(applicable.map((m) => [m, m[3]] as const));
      const label = apply(req, rng, w);
      if (label) req.mutations.push(label);
      else req.mutations.push(`${name} (not applicable)`);
      // a repeat of an earlier request stays exactly that
      if (req.expect.replay || name === "idempotent replay") break;
    }
    // a body over the size limit is 413 whatever else it is
    if (Buffer.byteLength(req.body ?? "") > bodyLimitsOf(req.op, w.limits).bodyBytes) req.expect.overLimit = true;
    // a body in another media type is 415 (contract), unless it is empty (then it is no body at all)
    if (req.expect.mediaType && req.op.body && (req.body ?? "").length > 0) req.expect.refuse.push(`content type ${req.expect.mediaType}`);
    else req.expect.mediaType = undefined;
    return req;
  }
}
