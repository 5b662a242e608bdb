// What the fuzzer learned from the service's answers: ids per scope (an org, or
// the platform) and collection, record versions, values seen per field name,
// and the ids each org created (the other org's ids for the cross-org checks).
import type { Rng } from "./rng";
import { collectionBefore, type Operation } from "./spec";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_PER_COLLECTION = 200;
const MAX_SEEN = 16;

/** "appointment-types" -> "appointment_type", "patient_uuids" -> "patient", "operatories" -> "operatory". */
export function stem(name: string): string {
  let s = name.toLowerCase().replace(/-/g, "_");
  s = s.replace(/(^|_)(uuids|ids|uuid|id|num|number)$/, "");
  if (s.endsWith("ies")) s = `${s.slice(0, -3)}y`;
  else if (/(ss|us|sh|ch|x)es$/.test(s)) s = s.slice(0, -2);
  else if (s.endsWith("s") && !s.endsWith("ss") && !s.endsWith("us")) s = s.slice(0, -1);
  return s;
}

export class Pools {
  /** scope -> collection stem -> ids of records seen (first seen first) */
  private readonly ids = new Map<string, Map<string, string[]>>();
  /** scope -> field stem -> ids seen only as values of `*_uuid` fields (maybe dangling: used when no record is known) */
  private readonly refs = new Map<string, Map<string, string[]>>();

  /** Record versions by scope, collection and id: two records may share an id (a user is a member of two orgs, and a platform admin). */
  private readonly versionsSeen = new Map<string, number>();

  /** The version last seen of the record `id` of the operation's last path parameter (its collection is the path's). */
  versionOf(scope: string, op: Operation, id: string | undefined): number | undefined {
    const last = op.pathParams[op.pathParams.length - 1];
    if (!last || !id) return undefined;
    return this.versionsSeen.get(`${scope} ${collectionBefore(op, last) ?? op.collection} ${id.toLowerCase()}`);
  }
  /** field name -> scalar values seen in answers */
  private readonly seen = new Map<string, unknown[]>();
  /** scope -> ids a 201 created there (fresh UUIDv7s: they exist nowhere else) */
  readonly created = new Map<string, Set<string>>();
  /** Whether a created id belongs to the scope's org alone (set by the fixture; default: yes). */
  owned: (scope: string, id: string) => boolean = () => true;
  /** Ids the fuzzer must never send to a write as the target (its own org, its own callers). */
  readonly protectedIds = new Set<string>();
  /** id -> the path ids it was listed or created under (a plan under its patient) */
  private readonly parents = new Map<string, Set<string>>();

  parentsOf(id: string): string[] {
    return [...(this.parents.get(id.toLowerCase()) ?? [])];
  }

  /** Whether `id` is in the collection a field or parameter called `name` (or the hinted collection) draws from. */
  holds(scope: string, name: string, id: string, collectionHint?: string): boolean {
    const byCollection = this.ids.get(scope);
    if (!byCollection) return false;
    if (collectionHint && byCollection.get(stem(collectionHint))?.includes(id)) return true;
    return byCollection.get(stem(name))?.includes(id) ?? false;
  }

  add(scope: string, collection: string, id: string, into = this.ids) {
    if (!UUID.test(id)) return;
    id = id.toLowerCase();
    let byCollection = into.get(scope);
    if (!byCollection) into.set(scope, (byCollection = new Map()));
    const key = stem(collection);
    let list = byCollection.get(key);
    if (!list) byCollection.set(key, (list = []));
    if (!list.includes(id)) {
      list.push(id);
      if (list.length > MAX_PER_COLLECTION) list.splice(0, list.length - MAX_PER_COLLECTION);
    }
  }

  collection(scope: string, collection: string): string[] {
    return this.ids.get(scope)?.get(stem(collection)) ?? [];
  }

  /**
   * A known id for a field or parameter called `name` in `scope`: from the
   * collection named like it (exactly, else one whose name ends like it).
   */
  idFor(scope: string, name: string, rng: Rng, collectionHint?: string): string | undefined {
    return this.lookup(this.ids, scope, name, rng, collectionHint) ?? this.lookup(this.refs, scope, name, rng, collectionHint);
  }

  private lookup(from: Map<string, Map<string, string[]>>, scope: string, name: string, rng: Rng, collectionHint?: string): string | undefined {
    const byCollection = from.get(scope);
    if (!byCollection) return undefined;
    if (collectionHint) {
      const list = byCollection.get(stem(collectionHint));
      if (list?.length) return rng.pick(list);
    }
    // appointment_type_a_uuid: appointment_type_a, then appointment_type
    for (let want = stem(name); want; want = want.includes("_") ? want.slice(0, want.lastIndexOf("_")) : "") {
      const exact = byCollection.get(want);
      if (exact?.length) return rng.pick(exact);
      const near: string[] = [];
      for (const [key, list] of byCollection) {
        if (list.length && (want.endsWith(`_${key}`) || key.endsWith(`_${want}`))) near.push(...list);
      }
      if (near.length) return rng.pick(near);
    }
    return undefined;
  }

  /** Values answers carried under `name`, or under a key ending in `_name` (`invitation_token` for `token`). */
  seenFor(name: string): unknown[] {
    const exact = this.seen.get(name);
    if (exact?.length) return exact;
    const out: unknown[] = [];
    for (const [k, list] of this.seen) if (k.endsWith(`_${name}`)) out.push(...list);
    return out;
  }

  createdIn(scope: string): Set<string> {
    let s = this.created.get(scope);
    if (!s) this.created.set(scope, (s = new Set()));
    return s;
  }

  /** Learns from a 2xx JSON answer to `op` (called with its concrete path parameters). */
  learn(scope: string, op: Operation, params: Record<string, string>, status: number, body: unknown) {
    if (body === null || typeof body !== "object") return;
    const last = op.pathParams[op.pathParams.length - 1];
    const top = body as Record<string, unknown>;
    const topId = typeof top.id === "string" ? top.id : typeof top.uuid === "string" ? top.uuid : undefined;
    let collection = op.collection;
    if (topId && last && params[last]?.toLowerCase() === topId.toLowerCase()) collection = collectionBefore(op, last) ?? collection;
    if (status === 201 && topId && UUID.test(topId) && this.owned(scope, topId.toLowerCase())) this.createdIn(scope).add(topId.toLowerCase());
    // the records of this answer belong under the path's ids (except their own)
    const parents = op.pathParams.map((p) => params[p]?.toLowerCase()).filter((v): v is string => !!v && UUID.test(v) && v !== topId?.toLowerCase());
    this.walk(scope, collection, body, 0, parents);
  }

  private walk(scope: string, collection: string, v: unknown, depth: number, parents: string[] = []) {
    if (depth > 8 || v === null || typeof v !== "object") return;
    if (Array.isArray(v)) {
      for (const x of v.slice(0, 100)) this.walk(scope, collection, x, depth + 1, parents);
      return;
    }
    const o = v as Record<string, unknown>;
    const id = typeof o.id === "string" ? o.id : typeof o.uuid === "string" ? o.uuid : undefined;
    if (id) {
      this.add(scope, collection, id);
      if (typeof o.version === "number") this.versionsSeen.set(`${scope} ${collection} ${id.toLowerCase()}`, o.version);
      if (parents.length) {
        let set = this.parents.get(id.toLowerCase());
        if (!set) this.parents.set(id.toLowerCase(), (set = new Set()));
        for (const p of parents) set.add(p);
      }
    }
    for (const [k, x] of Object.entries(o)) {
      if (x !== null && typeof x === "object") {
        const inner = k === "items" || k === "data";
        this.walk(scope, inner ? collection : k, x, depth + 1, inner ? parents : []);
      } else if ((typeof x === "string" && x.length <= 100 && !UUID.test(x)) || typeof x === "number") this.remember(k, x);
      else if (typeof x === "string" && UUID.test(x) && /_(uuid|id)$/.test(k)) this.add(scope, k, x, this.refs);
    }
  }

  remember(key: string, value: unknown) {
    let list = this.seen.get(key);
    if (!list) this.seen.set(key, (list = []));
    if (list.length < MAX_SEEN && !list.includes(value)) list.push(value);
  }
}
