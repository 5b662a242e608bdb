import type { SharedResources } from "./shared-resources";
import type { Config } from "@/config";
import type { Logger } from "./logger";
import type { ControlDatabase } from "./db/control";
import type { OrgDatabases } from "./db/org-databases";
import type { CacheStore, MessageBus } from "./cache/types";
import type { ObjectStorage } from "./storage/types";
import type { JobQueue } from "./queue/types";
import type { AccessResolver } from "./tenancy/access";
import type { TokenSigner } from "./auth/tokens";
import type { EventPublisher } from "./events/publisher";
import type { ResponseSealer } from "./http/idempotency";
import type { Orgs } from "./tenancy/orgs";

/** Everything a request or a job needs from the process, built once at start-up. */
export type Runtime = {
  config: Config;
  logger: Logger;
  control: ControlDatabase;
  /** Open org databases: only the guard and tenancy/orgs.ts use it (verbs get PlatformRuntime). */
  orgDbs: OrgDatabases;
  /** The named ways into an org by id: provisioning, jobs, platform reads, org-trail audit of control writes. */
  orgs: Orgs;
  cache: CacheStore;
  bus: MessageBus;
  storage: ObjectStorage;
  queue: JobQueue | null;
  access: AccessResolver;
  tokens: TokenSigner;
  events: EventPublisher;
  /** encrypts stored idempotent responses */
  sealer: ResponseSealer;
  /** Services made on first use and closed with the runtime (platform/shared-resources.ts). */
  shared: SharedResources;
  startedAt: number;
};

/** What platform verbs (auth, admin, platform audit) and job handlers get: no direct handle on org databases. */
export type PlatformRuntime = Omit<Runtime, "orgDbs">;
