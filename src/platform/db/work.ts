// A unit of database work is written once as a generator and runs on either
// backend: synchronously on a local file (no await inside a transaction, so two
// requests can never interleave in one), or awaited on a remote libSQL server.
// Each `yield*` hands one query to the runner, which executes it and sends back
// the result with its type intact.

export type Method = "all" | "get" | "run";
/** `db`: the handle a prepared step was asked on; the runner refuses one that is not the handle it gave the work. */
export type Step = { q: unknown; m: Method; args?: Record<string, unknown>; prepared?: PreparedDef<unknown>; db?: unknown };
export type Work<T> = Generator<Step, T, unknown>;

type Runnable<R, M extends Method> = { [K in M]: (...a: never[]) => R | Promise<R> };

export function* all<T>(q: Runnable<T[], "all">): Work<T[]> {
  return (yield { q, m: "all" }) as T[];
}
export function* get<T>(q: { get: (...a: never[]) => T | undefined | Promise<T | undefined> }): Work<T | undefined> {
  return (yield { q, m: "get" }) as T | undefined;
}
export function* run(q: { run: (...a: never[]) => unknown }): Work<void> {
  yield { q, m: "run" };
}

// A prepared statement is built once per open connection from this definition.
export type PreparedDef<R> = { build: (db: any) => unknown; __row?: R };
export function prepared<R>(build: (db: any) => unknown): PreparedDef<R> {
  return { build };
}
/** Run a prepared definition on `db` (the handle the unit of work was given), compiled once per connection. */
export function* getPrepared<R>(db: unknown, def: PreparedDef<R>, args: Record<string, unknown>): Work<R | undefined> {
  return (yield { q: null, m: "get", args, prepared: def as PreparedDef<unknown>, db }) as R | undefined;
}
export function* runPrepared(db: unknown, def: PreparedDef<unknown>, args: Record<string, unknown>): Work<void> {
  yield { q: null, m: "run", args, prepared: def, db };
}
export function* allPrepared<R>(db: unknown, def: PreparedDef<R>, args: Record<string, unknown>): Work<R[]> {
  return (yield { q: null, m: "all", args, prepared: def as PreparedDef<unknown>, db }) as R[];
}

/** A prepared step asked on another handle than the work's: it would run on the wrong database. */
function checkHandle(step: Step, handle: unknown): void {
  if (step.db !== undefined && step.db !== handle) throw new Error("a unit of work ran a prepared query on another database's handle");
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return !!v && typeof (v as { then?: unknown }).then === "function";
}

export type Executor = (step: Step) => unknown;

/** Drive a unit of work synchronously; every step must complete synchronously. `handle`: the db the work was given. */
export function driveSync<T>(work: Work<T>, exec: Executor, handle: unknown): T {
  let r = work.next();
  while (!r.done) {
    let value: unknown;
    try {
      checkHandle(r.value, handle);
      value = exec(r.value);
      if (isThenable(value)) throw new Error("asynchronous query inside a synchronous unit of work");
    } catch (err) {
      r = work.throw(err);
      continue;
    }
    r = work.next(value);
  }
  return r.value;
}

export async function driveAsync<T>(work: Work<T>, exec: Executor, handle: unknown): Promise<T> {
  let r = work.next();
  while (!r.done) {
    let value: unknown;
    try {
      checkHandle(r.value, handle);
      value = await exec(r.value);
    } catch (err) {
      r = work.throw(err);
      continue;
    }
    r = work.next(value);
  }
  return r.value;
}
