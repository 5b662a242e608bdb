// The set-up most HTTP tests share: an app, the platform admin's token, org A
// (the org under test), org B (the other tenant, for isolation checks) and
// members holding given permission keys, made in parallel.
import type { EventEnvelope } from "@/platform/events/envelope";
import { createMember, startTestApp, type TestApp } from "@tests/helpers";

/**
 * A member to create: the permission keys it holds in org A, or an object
 * with `org: "B"` for a member of org B only; `displayName`, `password` and
 * `platformKeys` as createMember takes them.
 */
export type MemberSpec = readonly string[] | { keys: readonly string[]; org?: "A" | "B"; displayName?: string; password?: string; platformKeys?: string[] };

export type Member = Awaited<ReturnType<typeof createMember>>;

export type TwoOrgOptions = {
  /** Environment for startTestApp. */
  env?: Record<string, string>;
  /** Start the app with its queue (startTestApp's withQueue). */
  withQueue?: boolean;
  /** An app already started to create the orgs and members in (env and withQueue then do not apply). */
  app?: TestApp;
  /** Collect org A's events in `events`, from before the members are created. */
  events?: boolean;
};

/**
 * An app with two fresh orgs, A then B, and the members named in `members`, e.g.
 * `twoOrgApp({ reader: ["x.read"], memberOfB: { org: "B", keys: ["x.read"] } })`:
 * `orgA`, `orgB` and their `/api/v1/{org}` paths `pathA`, `pathB`;
 * `members.reader` is createMember's answer, `tokens.reader` its access token.
 */
export async function twoOrgApp<const M extends Record<string, MemberSpec> = {}>(members: M = {} as M, options: TwoOrgOptions = {}) {
  const t = options.app ?? (await startTestApp(options.env, { withQueue: options.withQueue }));
  const admin = await t.adminToken();
  const orgA = (await t.createOrg(admin)).id;
  const orgB = (await t.createOrg(admin)).id;
  const events: EventEnvelope[] = [];
  if (options.events) t.rt.events.subscribe(orgA, (e) => events.push(e));
  const names = Object.keys(members) as (keyof M & string)[];
  const made = await Promise.all(
    names.map((name) => {
      const spec = members[name]!;
      const { keys, org, ...opts }: Exclude<MemberSpec, readonly string[]> = Array.isArray(spec)
        ? { keys: spec }
        : (spec as Exclude<MemberSpec, readonly string[]>);
      return createMember(t, org === "B" ? orgB : orgA, [...keys], opts);
    }),
  );
  const byName = <V>(value: (m: Member) => V) => Object.fromEntries(names.map((name, i) => [name, value(made[i]!)])) as { [K in keyof M]: V };
  return {
    t,
    admin,
    orgA,
    orgB,
    pathA: `/api/v1/${orgA}`,
    pathB: `/api/v1/${orgB}`,
    members: byName((m) => m),
    tokens: byName((m) => m.token),
    events,
  };
}

export type TwoOrgApp = Awaited<ReturnType<typeof twoOrgApp>>;
