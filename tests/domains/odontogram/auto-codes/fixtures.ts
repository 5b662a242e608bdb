import { twoOrgApp, unique, type TestApp } from "@tests/helpers";

export const MISSING = "01970000-0000-7000-8000-000000000000";

/** An app with two orgs (A, B: their {P}/odontogram/auto-codes paths) and members holding partial keys. */
export async function autoCodeApp() {
  const w = await twoOrgApp(
    {
      reader: ["odontogram.read"],
      outsider: ["definitions.read", "definitions.write"],
      memberOfB: { org: "B", keys: ["odontogram.read", "odontogram.write"] },
    },
    { events: true },
  );
  const { t, admin, orgA, orgB, events } = w;
  const A = `${w.pathA}/odontogram/auto-codes`;
  const B = `${w.pathB}/odontogram/auto-codes`;
  return { t, admin, orgA, orgB, A, B, events, ...w.tokens };
}

export type Env = Awaited<ReturnType<typeof autoCodeApp>>;

/** Create a family (201 or throw); family_name is unique per call unless given. */
export async function family(env: Pick<Env, "t" | "admin">, P: string, body: Record<string, unknown> = {}) {
  const r = await env.t.request("POST", `${P}/auto-code-families`, {
    token: env.admin,
    body: { family_name: unique("fam"), display_name: "Family", selection_type: "surface_count", ...body },
  });
  if (r.status !== 201) throw new Error(`create family failed: ${r.status} ${r.text}`);
  return r.body;
}

/** Create a rule in a family (201 or throw). */
export async function rule(env: Pick<Env, "t" | "admin">, P: string, familyId: string, body: Record<string, unknown>) {
  const r = await env.t.request("POST", `${P}/auto-code-families/${familyId}/rules`, { token: env.admin, body });
  if (r.status !== 201) throw new Error(`create rule failed: ${r.status} ${r.text}`);
  return r.body;
}

export type { TestApp };
