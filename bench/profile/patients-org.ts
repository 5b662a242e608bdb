import type { TestApp } from "@tests/helpers";

/** A new org with a location and `n` patients (First<i> Last<i>), made through the API of `t`: the profiles' fixture. */
export async function orgWithPatients(t: TestApp, token: string, n: number): Promise<{ P: string; ids: string[] }> {
  const org = await t.createOrg(token);
  const P = `/api/v1/${org.id}`;
  const loc = (await t.request("POST", `${P}/locations`, { token, body: { name: "Home", timezone: "America/Chicago" } })).body.id;
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await t.request("POST", `${P}/patients`, {
      token,
      body: { first_name: `First${i}`, last_name: `Last${i}`, date_of_birth: "1980-01-01", location_uuid: loc },
    });
    ids.push(r.body.id);
  }
  return { P, ids };
}
