import type { Config } from "@/config";
import type { Logger } from "./logger";
import type { SqlDatabase } from "./db/database";
import type { ControlSchema } from "@db/control/schema";
import type { OrgDatabases } from "./db/org-databases";
import type { CacheStore, MessageBus } from "./cache/types";
import type { ObjectStorage } from "./storage/types";
import type { JobQueue } from "./queue/types";
import type { AccessResolver } from "./tenancy/access";
import type { TokenSigner } from "./auth/tokens";
import type { EventPublisher } from "./events/publisher";
import type { ResponseSealer } from "./http/idempotency";

export type ControlDatabase = SqlDatabase<ControlSchema>;

/** Everything a request or a job needs from the process, built once at start-up. */
export type Runtime = {
  config: Config;
  logger: Logger;
  control: ControlDatabase;
  orgDbs: OrgDatabases;
  cache: CacheStore;
  bus: MessageBus;
  storage: ObjectStorage;
  queue: JobQueue | null;
  access: AccessResolver;
  tokens: TokenSigner;
  events: EventPublisher;
  /** encrypts stored idempotent responses */
  sealer: ResponseSealer;
  startedAt: number;
};
