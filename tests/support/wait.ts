// Waiting in tests: poll for the concrete condition with a deadline instead of
// sleeping a fixed time; a bounded wait (settle) only for negative checks.
import type { MessageBus } from "@/platform/cache/types";

export type WaitOptions = {
  /** Give up (and throw) after this long; default 5 s. */
  timeoutMs?: number;
  /** Pause between checks; default 5 ms. */
  intervalMs?: number;
  /** What is awaited, for the timeout message (a function is called only then). */
  what?: string | (() => string);
};

type Truthy<T> = Exclude<T, false | 0 | "" | null | undefined>;

/**
 * Polls `probe` until it returns a truthy value, and returns that value; throws
 * after `timeoutMs`. The first check runs at once: a condition that already
 * holds costs no wait.
 */
export async function waitFor<T>(probe: () => T | Promise<T>, opts: WaitOptions = {}): Promise<Truthy<T>> {
  const { timeoutMs = 5_000, intervalMs = 5 } = opts;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as Truthy<T>;
    if (Date.now() > deadline) {
      const what = typeof opts.what === "function" ? opts.what() : (opts.what ?? "a condition");
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await Bun.sleep(intervalMs);
  }
}

/**
 * Waits until `list` (filled by a subscriber) holds an item matching `predicate`
 * at index `from` or later, and returns the first such item.
 */
export function waitForEvent<T>(list: readonly T[], predicate: (item: T) => boolean, opts: WaitOptions & { from?: number } = {}): Promise<T> {
  const from = opts.from ?? 0;
  return waitFor(() => list.slice(from).find(predicate), { what: "a matching event", ...opts }) as Promise<T>;
}

/**
 * Resolves once every message published on `bus` before the call was delivered: the bus keeps
 * publish order, so a fence message arriving proves the earlier ones did. Writes publish before
 * returning, so then a finished request's events are all captured (exact counts, absences).
 */
export async function busDrained(bus: MessageBus, opts: WaitOptions = {}): Promise<void> {
  const channel = `cusp:test:fence:${Bun.randomUUIDv7()}`;
  let arrived = false;
  const off = bus.subscribe(channel, () => {
    arrived = true;
  });
  try {
    await bus.publish(channel, "fence");
    await waitFor(() => arrived, { what: "the bus fence", ...opts });
  } finally {
    off();
  }
}

/**
 * A bounded wait for negative checks only, where no signal marks "it did not
 * happen": it gives something that must not happen (say a stray UNSUBSCRIBE)
 * time to show up before the test looks.
 */
export const settle = (ms = 50) => Bun.sleep(ms);

/** Resolves with `promise`, or with `onTimeout` after `ms`; the timer is cleared either way. */
export async function withDeadline<T, U>(promise: Promise<T>, ms: number, onTimeout: U): Promise<T | U> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([promise, new Promise<U>((resolve) => (timer = setTimeout(() => resolve(onTimeout), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
