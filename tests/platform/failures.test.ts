import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { createClient } from "@libsql/client";
import { Breaker, ServiceDown } from "@/platform/async/breaker";
import { storageFailureOf } from "@/platform/db/failures";

// What a failure under a request is answered with (platform/db/failures.ts),
// from errors the drivers really throw.

const thrown = async (work: () => unknown) => {
  try {
    await work();
  } catch (err) {
    return err;
  }
  throw new Error("nothing was thrown");
};
const answer = (err: unknown) => {
  const e = storageFailureOf(err);
  return e && { status: e.status, code: e.code, detail: e.message, retryAfter: e.headers?.["Retry-After"] };
};

describe("failures under a request", () => {
  test("a remote database that cannot be reached (@libsql/client over HTTP and WebSockets) is 503, worth retrying in 2 s", async () => {
    for (const url of ["http://127.0.0.1:1", "ws://127.0.0.1:1"]) {
      const client = createClient({ url });
      const err = await thrown(() => client.execute("SELECT 1"));
      client.close();
      expect({ url, answer: answer(err) }).toEqual({
        url,
        answer: { status: 503, code: "service_unavailable", detail: "A service this request needs cannot be reached; try again shortly", retryAfter: "2" },
      });
    }
  });

  test("a breaker refusing a shared service is 503, worth retrying in a second", async () => {
    const breaker = new Breaker("redis", { timeoutMs: 20, failures: 1 });
    const err = await thrown(() => breaker.run(() => new Promise(() => {})));
    expect(err).toBeInstanceOf(ServiceDown);
    expect(breaker.state).toBe("open");
    // open: refused at once, without calling
    let called = false;
    const again = await thrown(() => breaker.run(async () => (called = true)));
    expect(called).toBe(false);
    expect(answer(again)).toEqual({
      status: 503,
      code: "service_unavailable",
      detail: "A service this request needs (redis) is not answering; try again shortly",
      retryAfter: "1",
    });
  });

  test("SQLite's own errors: an I/O error is 503; a constraint, a syntax error or a plain bug is not this mapper's (a 409 or a 500 elsewhere)", async () => {
    const db = new Database(":memory:");
    db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY)");
    db.exec("INSERT INTO t VALUES (1)");
    expect(answer(await thrown(() => db.exec("INSERT INTO t VALUES (1)")))).toBeNull();
    expect(answer(await thrown(() => db.exec("SELEC 1")))).toBeNull();
    expect(answer(new TypeError("x is undefined"))).toBeNull();
    db.close();
    expect(answer(Object.assign(new Error("disk I/O error"), { code: "SQLITE_IOERR_WRITE" }))).toMatchObject({ status: 503, retryAfter: "5" });
    // the full disk itself is tests/platform/disk-full.test.ts
  });
});
