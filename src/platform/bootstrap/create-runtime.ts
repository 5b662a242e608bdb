import { SharedResources } from "@/platform/shared-resources";
import { replicationNotices } from "@/platform/db/replication-notices";
import type { Config } from "@/config";
import { createLogger, type Logger } from "@/platform/logger";
import { controlDatabaseTarget, MIGRATIONS, openDatabase } from "@/platform/db/open";
import { controlSchema, shards, users } from "@db/control/schema";
import { OrgDatabases } from "@/platform/db/org-databases";
import { walCheckpoints } from "@/platform/db/wal-checkpoints";
import { get, run } from "@/platform/db/work";
import { newId, nowIso } from "@/platform/ids";
import { hashPassword } from "@/platform/auth/passwords";
import { TokenSigner } from "@/platform/auth/tokens";
import { AccessResolver } from "@/platform/tenancy/access";
import { Orgs } from "@/platform/tenancy/orgs";
import { EventPublisher } from "@/platform/events/publisher";
import { ResponseSealer } from "@/platform/http/idempotency";
import { createCacheAndBus } from "@/platform/cache/factory";
import { createStorage } from "@/platform/storage/factory";
import { createQueue } from "@/platform/queue/factory";
import type { Runtime } from "@/platform/runtime";
import type { Reactions } from "@/platform/records/context";

/** First start with an empty control database: a default shard and the platform administrator. */
async function seedControl(rt: Pick<Runtime, "control" | "config" | "logger">) {
  const { config, logger } = rt;
  const now = nowIso();
  const hasShard = await rt.control.read((db) => get(db.select({ id: shards.id }).from(shards).limit(1)));
  if (!hasShard) {
    await rt.control.write((tx) =>
      run(
        tx
          .insert(shards)
          .values({
            id: newId(),
            name: "default",
            region: "local",
            dsn: config.defaultShard.dsn,
            auth_token: config.defaultShard.authToken ?? null,
            is_active: true,
            max_orgs: 10_000,
            created_at: now,
            updated_at: now,
            version: 1,
          })
          .onConflictDoNothing(),
      ),
    ); // an API and a worker process may seed at the same moment
  }
  const hasUser = await rt.control.read((db) => get(db.select({ id: users.id }).from(users).limit(1)));
  if (!hasUser) {
    if (config.bootstrapAdmin.fromDefaults)
      logger.warn(
        { email: config.bootstrapAdmin.email },
        "bootstrap administrator created from default credentials: set DPMS_ADMIN_EMAIL and DPMS_ADMIN_PASSWORD",
      );
    const hash = await hashPassword(config.bootstrapAdmin.password);
    await rt.control.write((tx) =>
      run(
        tx
          .insert(users)
          .values({
            id: newId(),
            email: config.bootstrapAdmin.email,
            display_name: "Platform administrator",
            password_hash: hash,
            status: "active",
            is_platform_admin: true,
            is_global_access: true,
            created_at: now,
            updated_at: now,
            version: 1,
          })
          .onConflictDoNothing(),
      ),
    );
  }
}

/**
 * The process's runtime. `reactions` is the composition root's list of what
 * reacts to which moment (src/reactions.ts), as buildApp takes the routes.
 */
export async function createRuntime(config: Config, options: { reactions: Reactions; logger?: Logger; withQueue?: boolean }): Promise<Runtime> {
  const logger = options.logger ?? createLogger(config.logLevel);
  // the WAL checkpoint thread (one per process, shared by every runtime in it)
  walCheckpoints.start();
  const control = openDatabase(controlDatabaseTarget(config.control.url), config.control.authToken, controlSchema);
  await control.migrate(MIGRATIONS.control);
  const { cache, bus } = await createCacheAndBus(config, logger);
  const storage = await createStorage(config);
  const queue = options.withQueue === false ? null : await createQueue(config, logger);
  // an edge instance reads its replicas of replicated org databases; the primary region writes them (docs/operations/deploy.md)
  const orgDbs = new OrgDatabases(
    config.orgDbCacheSize,
    undefined,
    { role: config.regions.edge ? "replica" : "primary", dir: config.replicaDir },
    config.orgDbIdleSeconds,
  );
  replicationNotices(orgDbs, bus);
  const access = new AccessResolver(control, bus, logger);
  const events = new EventPublisher(bus, logger);
  const rt: Runtime = {
    config,
    logger,
    control,
    orgDbs,
    cache,
    bus,
    storage,
    queue,
    access,
    events,
    orgs: new Orgs({ control, orgDbs, events, queue, logger, access, reactions: options.reactions, primary: !config.regions.edge }),
    tokens: new TokenSigner(config.jwtSecret, config.accessTokenTtl),
    sealer: new ResponseSealer(config.jwtSecret),
    shared: new SharedResources(),
    startedAt: Date.now(),
  };
  await seedControl(rt);
  // org-trail audit entries a stopped process committed but did not deliver
  await rt.orgs.outbox.deliverAll();
  // jobs recorded and not handed to the queue: the control database's now, an org's when it is opened
  rt.orgs.jobRelay.start();
  return rt;
}

export async function closeRuntime(rt: Runtime) {
  rt.access.close();
  rt.events.close();
  await rt.orgs.jobRelay.stop();
  await rt.queue?.stop().catch(() => {});
  // audit index rows and marks still waiting (what would be left is indexed on the next open anyway)
  await rt.orgs.auditIndex.drain().catch(() => {});
  await rt.shared.closeAll();
  await rt.storage.close().catch(() => {});
  await rt.bus.close().catch(() => {});
  await rt.cache.close().catch(() => {});
  rt.orgDbs.closeAll();
  rt.control.close();
}
