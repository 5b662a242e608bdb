import { twoOrgApp, type TestApp } from "@tests/helpers";
import { orgDb } from "@tests/domains/patients/record/fixtures";
import { all } from "@/platform/db/work";
import type { EventEnvelope } from "@/platform/events/envelope";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";

export const MISSING = "01970000-0000-7000-8000-000000000000";
export const PROFILE_1 = "01970000-0000-7000-8000-0000000000a1";
export const PROFILE_2 = "01970000-0000-7000-8000-0000000000a2";

export type World = {
  t: TestApp;
  admin: string;
  orgA: string;
  orgB: string;
  /** `{P}/odontogram` of org A and B */
  A: string;
  B: string;
  /** members of A: odontogram.read + write, odontogram.read only, no odontogram key */
  writer: { userId: string; token: string };
  reader: { userId: string; token: string };
  outsider: string;
  /** a member of B holding both odontogram keys */
  memberOfB: string;
  events: EventEnvelope[];
};

/** A fresh app, two orgs and the members every odontogram-tools test file uses. */
export async function world(): Promise<World> {
  const w = await twoOrgApp(
    {
      writer: ["odontogram.read", "odontogram.write"],
      reader: ["odontogram.read"],
      outsider: ["patients.read", "locations.read"],
      memberOfB: { org: "B", keys: ["odontogram.read", "odontogram.write"] },
    },
    { events: true },
  );
  const { t, admin, orgA, orgB, events } = w;
  const { writer, reader, outsider, memberOfB } = w.members;
  return {
    t,
    admin,
    orgA,
    orgB,
    A: `${w.pathA}/odontogram`,
    B: `${w.pathB}/odontogram`,
    writer: { userId: writer.userId, token: writer.token },
    reader: { userId: reader.userId, token: reader.token },
    outsider: outsider.token,
    memberOfB: memberOfB.token,
    events,
  };
}

/** Every row of a table in the org's database, archived ones included (to prove nothing changed). */
export async function rowsOf(t: TestApp, orgId: string, table: SQLiteTable) {
  const db = await orgDb(t, orgId);
  return db.read((d) => all<any>(d.select().from(table)));
}
