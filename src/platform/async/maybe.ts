// Code on the request hot path whose steps are usually answered from a cache
// (sessions, principals, org access) is written once as a generator over
// values-or-promises. `runMaybe` drives it synchronously while every step is
// already a value, and switches to awaiting only at the first real promise: a
// cache hit then costs no promise allocations or microtask turns at all.

export type Maybe<T> = T | Promise<T>;
export type MaybeWork<T> = Generator<unknown, T, unknown>;

/** One step: `const v = yield* wait(maybePromise)`. */
export function* wait<T>(value: Maybe<T>): MaybeWork<T> {
  return (yield value) as T;
}

export function runMaybe<T>(work: MaybeWork<T>): Maybe<T> {
  let r = work.next();
  while (!r.done) {
    if (r.value instanceof Promise) return finishAsync(work, r.value);
    r = work.next(r.value);
  }
  return r.value;
}

async function finishAsync<T>(work: MaybeWork<T>, pending: Promise<unknown>): Promise<T> {
  let r: IteratorResult<unknown, T>;
  try {
    r = work.next(await pending);
  } catch (err) {
    r = work.throw(err);
  }
  while (!r.done) {
    try {
      r = work.next(r.value instanceof Promise ? await r.value : r.value);
    } catch (err) {
      r = work.throw(err);
    }
  }
  return r.value;
}

/** Apply `f` now to a value, or later to a promise's result. */
export function then<T, R>(value: Maybe<T>, f: (v: T) => Maybe<R>): Maybe<R> {
  return value instanceof Promise ? value.then(f) : f(value);
}
