import type { ControlSchema } from "@db/control/schema";
import type { Db, SqlDatabase } from "./database";

/** The control database: shards, orgs, users, memberships, sessions, the audit index. */
export type ControlDatabase = SqlDatabase<ControlSchema>;
/** The handle a unit of work on the control database builds its queries on. */
export type ControlDb = Db<ControlSchema>;
