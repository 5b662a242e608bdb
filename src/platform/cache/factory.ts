import type { Config } from "@/config";
import type { Logger } from "@/platform/logger";
import type { CacheStore, MessageBus } from "./types";
import { MemoryBus, MemoryCacheStore } from "./memory";

/** In-process by default; Redis when REDIS_URL is set. */
export async function createCacheAndBus(config: Config, logger: Logger): Promise<{ cache: CacheStore; bus: MessageBus }> {
  if (config.redisUrl) {
    const { createRedisCacheAndBus } = await import("./redis");
    return createRedisCacheAndBus(config.redisUrl, logger);
  }
  return { cache: new MemoryCacheStore(), bus: new MemoryBus() };
}
