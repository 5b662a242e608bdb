import type { Config } from "@/config";
import type { CacheStore } from "@/platform/cache/types";
import { AppError, ServiceUnavailable, TooManyRequests } from "@/platform/errors";
import { sha256 } from "@/platform/ids";

/**
 * Failed-attempt throttling for the credential verbs (login, refresh,
 * accept-invite): docs/platform/security.md, "Login throttling". Counters and locks live
 * in the cache store, so every API instance sharing a Redis sees the same ones.
 *
 * Each subject (an account, an invitation, a client address) counts its
 * failures over a sliding window. The failure that reaches the subject's
 * maximum locks it for `lockoutSeconds * 2^(lockouts so far)`, capped at
 * `lockoutMaxSeconds`, and starts a fresh count for after the lock. While any
 * subject of an attempt is locked the attempt is refused with 429 before
 * anything is looked up or verified: the right password is refused too, and a
 * known and an unknown email get the same answer at the same cost. A success
 * clears the failure count of the subjects that say so (the account, the
 * invitation), never a lock, and never an address's count.
 */

export type ThrottleSubject = {
  /** Cache key stem, e.g. `login:acct:<sha256 of the email>`. */
  key: string;
  maxFailures: number;
  /** A success clears the failure count (accounts and invitations; not addresses). */
  resetOnSuccess: boolean;
};

type Limits = Config["loginThrottle"];

const PREFIX = "throttle:";

export class LoginThrottle {
  constructor(
    private readonly cache: CacheStore,
    private readonly limits: Limits,
    private readonly now: () => number = Date.now,
  ) {}

  /** An account, by its normalised email (hashed: no address sits in the cache). */
  account(verb: string, email: string): ThrottleSubject {
    return { key: `${verb}:acct:${sha256(email.trim().toLowerCase())}`, maxFailures: this.limits.maxFailures, resetOnSuccess: true };
  }

  /** A secret the caller presents (an invitation token), by its hash. */
  secret(verb: string, tokenHash: string): ThrottleSubject {
    return { key: `${verb}:secret:${tokenHash}`, maxFailures: this.limits.maxFailures, resetOnSuccess: true };
  }

  /** A client address (platform/http/rate-limit.ts `clientAddressOf`). */
  address(verb: string, address: string): ThrottleSubject {
    return { key: `${verb}:addr:${address}`, maxFailures: this.limits.maxFailuresPerAddress, resetOnSuccess: false };
  }

  /**
   * Runs `work` unless a subject is locked (429 with Retry-After then). An error
   * that `isFailure` accepts counts against every subject and is thrown on; a
   * result clears the counts of the subjects that reset on success.
   */
  async attempt<T>(subjects: ThrottleSubject[], isFailure: (err: unknown) => boolean, work: () => Promise<T>): Promise<T> {
    await storeOrUnavailable(this.check(subjects));
    let result: T;
    try {
      result = await work();
    } catch (err) {
      if (isFailure(err)) await storeOrUnavailable(this.failed(subjects));
      throw err;
    }
    await storeOrUnavailable(this.succeeded(subjects));
    return result;
  }

  /** 429 when any subject is locked; Retry-After is the longest remaining lock. */
  async check(subjects: ThrottleSubject[]): Promise<void> {
    const locks = await Promise.all(subjects.map((s) => this.cache.get(`${PREFIX}${s.key}:lock`)));
    let until = 0;
    for (const v of locks) if (v !== null) until = Math.max(until, Number(v));
    const leftMs = until - this.now();
    if (leftMs > 0) {
      const wait = Math.max(1, Math.ceil(leftMs / 1000));
      throw new TooManyRequests(wait, `Too many failed attempts; try again in ${wait} second${wait === 1 ? "" : "s"}`);
    }
  }

  async failed(subjects: ThrottleSubject[]): Promise<void> {
    const { failureWindowSeconds, lockoutSeconds, lockoutMaxSeconds } = this.limits;
    await Promise.all(
      subjects.map(async (s) => {
        const k = `${PREFIX}${s.key}`;
        // exactly the failure that reaches the maximum locks (concurrent failures lock once)
        if ((await this.cache.increment(`${k}:n`, failureWindowSeconds)) !== s.maxFailures) return;
        // how many locks so far: forgotten once no lock happened for the longest lock plus the window
        const level = await this.cache.increment(`${k}:level`, lockoutMaxSeconds + failureWindowSeconds);
        const seconds = Math.min(lockoutMaxSeconds, lockoutSeconds * 2 ** Math.min(level - 1, 30));
        await this.cache.set(`${k}:lock`, String(this.now() + seconds * 1000), seconds);
        await this.cache.delete(`${k}:n`);
      }),
    );
  }

  async succeeded(subjects: ThrottleSubject[]): Promise<void> {
    const clear = subjects.filter((s) => s.resetOnSuccess);
    if (clear.length) await Promise.all(clear.map((s) => this.cache.delete(`${PREFIX}${s.key}:n`)));
  }
}

/**
 * Without its counters the throttle cannot tell a guess from a login: the
 * credential verbs answer 503 rather than run unthrottled (the general rate
 * limit, which only protects capacity, lets requests through instead).
 */
async function storeOrUnavailable(work: Promise<void>): Promise<void> {
  try {
    await work;
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new ServiceUnavailable("Sign-in is unavailable for a moment; try again shortly", 1);
  }
}
