// The floor of rows (b0), (c0), (e30) and (d0): the same work as Cusp's
// (b), (c), (e3) and the booking pipeline with no framework. A bare
// `Bun.serve` on one org's database file, written by the Cusp server, that
// runs the SQL Cusp runs for these requests (bun:sqlite statements compiled
// once, Cusp's pragmas, its read and write transactions, the same audit rows
// and audit index rows) and answers the same JSON: no validation, no guard, no
// framework. The runner checks the answers equal Cusp's before measuring
// (bench/runner/floor.ts).
//
// Settings (environment): PORT; FLOOR_ORG (the org id); FLOOR_ORG_DB (its
// file); FLOOR_CONTROL_DB (the control database: org name, audit index);
// FLOOR_ACTOR (JSON {actor_id, actor_type, actor_display_name}: who the audit
// rows name, the writes only).

import { walCheckpoints } from "@/platform/db/wal-checkpoints";
import { FloorDb, OrgWrites } from "./floor-db";
import { Unsupported, getPatient, searchPatients } from "./floor-patients";
import { type Caller, createAppointment, createLocation, listAppointmentTypes } from "./floor-writes";

const env = (name: string) => {
  const v = process.env[name];
  if (!v) throw new Error(`floor: ${name} is not set`);
  return v;
};
const orgId = env("FLOOR_ORG");
const org = new FloorDb(env("FLOOR_ORG_DB"));
const control = new FloorDb(env("FLOOR_CONTROL_DB"));
const writes = new OrgWrites(org, control, orgId);
const actor = JSON.parse(process.env.FLOOR_ACTOR ?? "null") as Omit<Caller, "ip"> | null;
walCheckpoints.start();

const prefix = `/api/v1/${orgId}/`;
const notFound = () => Response.json({ detail: "Not found" }, { status: 404 });

/** The caller of a write: the actor the runner named, at the client's address as Cusp records it (request-state.ts: IPv4 as IPv4). */
function callerOf(req: Request): Caller {
  if (!actor) throw new Error("floor: FLOOR_ACTOR is not set: writes need it");
  const socket = server.requestIP(req)?.address ?? null;
  return { ...actor, ip: socket?.startsWith("::ffff:") && socket.includes(".") ? socket.slice(7) : socket };
}

/** The reads answer synchronously (no promise per request); the writes once their audit entries are indexed. */
function answer(req: Request): Response | Promise<Response> {
  const url = new URL(req.url);
  if (url.pathname === "/ping") return new Response("ok");
  if (!url.pathname.startsWith(prefix)) return notFound();
  const path = url.pathname.slice(prefix.length);
  if (req.method === "GET") {
    if (path.startsWith("patients/")) {
      const patient = getPatient(org, decodeURIComponent(path.slice("patients/".length)));
      return patient ? Response.json(patient) : notFound();
    }
    if (path === "patients") {
      const q = url.searchParams;
      const term = q.get("search") ?? q.get("query");
      if (!term) return Response.json({ detail: "the floor answers searches only" }, { status: 501 });
      return Response.json(searchPatients(org, term, Number(q.get("page") ?? 1), Number(q.get("page_size") ?? 50)));
    }
    if (path === "appointment-types") return Response.json(listAppointmentTypes(org, url.searchParams.get("is_active")));
  }
  if (req.method === "POST") {
    if (path === "locations") return create(req);
    if (path === "appointments") return book(req);
  }
  return notFound();
}

async function create(req: Request) {
  return Response.json(await createLocation(writes, callerOf(req), await req.json()), { status: 201 });
}

async function book(req: Request) {
  const booked = await createAppointment(writes, callerOf(req), await req.json());
  return Response.json(booked.body, { status: booked.status });
}

const failed = (err: unknown) => Response.json({ detail: (err as Error).message }, { status: err instanceof Unsupported ? 501 : 500 });

const server = Bun.serve({
  port: Number(process.env.PORT ?? 0),
  hostname: "127.0.0.1",
  fetch(req) {
    try {
      const res = answer(req);
      return res instanceof Promise ? res.catch(failed) : res;
    } catch (err) {
      return failed(err);
    }
  },
});
console.log(`floor Bun.serve for org ${orgId} listening on ${server.port}`);
process.on("SIGTERM", () => {
  server.stop(true);
  org.sqlite.close();
  control.sqlite.close();
  process.exit(0);
});
