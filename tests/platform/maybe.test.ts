import { describe, expect, test } from "bun:test";
import { runMaybe, then, wait } from "@/platform/async/maybe";

describe("runMaybe: synchronous while every step is a value", () => {
  test("all values: the result comes back synchronously, not as a promise", () => {
    const out = runMaybe(
      (function* () {
        const a = yield* wait(2);
        const b = yield* wait(3);
        return a * b;
      })(),
    );
    expect(out).toBe(6);
  });

  test("a promise step switches to async and later steps still run in order", async () => {
    const seen: number[] = [];
    const out = runMaybe(
      (function* () {
        seen.push(yield* wait(1));
        seen.push(yield* wait(Promise.resolve(2)));
        seen.push(yield* wait(3));
        seen.push(yield* wait(Promise.resolve(4)));
        return seen.length;
      })(),
    );
    expect(out).toBeInstanceOf(Promise);
    expect(await out).toBe(4);
    expect(seen).toEqual([1, 2, 3, 4]);
  });

  test("a throw on the synchronous path throws synchronously", () => {
    expect(() =>
      runMaybe(
        (function* () {
          yield* wait(1);
          throw new Error("denied");
        })(),
      ),
    ).toThrow("denied");
  });

  test("a rejected step is thrown into the generator, where try/catch sees it", async () => {
    const out = runMaybe(
      (function* () {
        try {
          yield* wait(Promise.reject(new Error("lookup failed")));
          return "not reached";
        } catch (err) {
          return `caught ${(err as Error).message}`;
        }
      })(),
    );
    expect(await out).toBe("caught lookup failed");
  });

  test("an uncaught rejection rejects the returned promise", async () => {
    const out = runMaybe(
      (function* () {
        yield* wait(Promise.resolve(1));
        yield* wait(Promise.reject(new Error("boom")));
        return 1;
      })(),
    );
    await expect(out).rejects.toThrow("boom");
  });
});

describe("then", () => {
  test("applies now to a value and later to a promise", async () => {
    expect(then(2, (v) => v + 1)).toBe(3);
    const later = then(Promise.resolve(2), (v) => v + 1);
    expect(later).toBeInstanceOf(Promise);
    expect(await later).toBe(3);
  });
});
