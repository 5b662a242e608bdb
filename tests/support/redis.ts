import Redis from "ioredis";

// The local Redis the production-path tests run against (127.0.0.1:6379, or
// TEST_REDIS_URL). A test file asks once whether it answers; when it does not,
// the file says why and its Redis cases are reported as skipped, never passed.

export const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

/** Null when Redis answers PING; otherwise why not. One attempt, a short timeout, no retries. */
export async function probeRedis(url = REDIS_URL): Promise<string | null> {
  const probe = new Redis(url, { lazyConnect: true, connectTimeout: 1_000, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
  let lastError: Error | undefined;
  probe.on("error", (err: Error) => (lastError = err));
  try {
    await probe.connect();
    const pong = await probe.ping();
    return pong === "PONG" ? null : `unexpected PING reply ${pong}`;
  } catch (err) {
    // connect() rejects with a bare "Connection is closed."; the cause came as an "error" event
    return (lastError ?? (err as Error)).message || String(err);
  } finally {
    probe.disconnect();
  }
}

/** Probes Redis and, when it does not answer, prints which cases of `file` are skipped and why. */
export async function redisUnavailable(file: string, cases: string): Promise<string | null> {
  const down = await probeRedis();
  if (down) console.log(`[${file}] Redis at ${REDIS_URL} did not answer (${down}): ${cases} skipped`);
  return down;
}
