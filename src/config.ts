import { z } from "zod";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { randomBytes } from "node:crypto";

// Every runtime choice is made here from the environment; with no env at all the
// service runs on its embedded defaults (files under ./data, in-process parts).

/** An X12 interchange id (ISA06/ISA08, GS02/GS03): 2 to 15 printable characters, none of the separators * ~ : ^. */
const X12Id = z
  .string()
  .trim()
  .regex(/^[\x20-\x7E]{2,15}$/, "Must be 2 to 15 printable ASCII characters")
  .refine((v) => !/[*~:^]/.test(v), "Must not contain * ~ : or ^");

const Env = z.object({
  NODE_ENV: z.string().default("development"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Several API processes listen on one port (SO_REUSEPORT; the kernel spreads connections): scripts/cluster.ts sets it. */
  REUSE_PORT: z.stringbool().default(false),
  DATA_DIR: z.string().default("./data"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  DPMS_ADMIN_EMAIL: z.string().optional(),
  DPMS_ADMIN_PASSWORD: z.string().optional(),
  DPMS_JWT_SECRET: z.string().min(32).optional(),
  DPMS_AUTH_MODE: z.enum(["jwt", "dev-stub"]).default("jwt"),
  ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().positive().default(900),
  REFRESH_TOKEN_TTL_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(30 * 24 * 3600),
  // ~0.85 MB and 3 file descriptors per open org database (docs/operations/performance.md, row m1)
  ORG_DB_CACHE_SIZE: z.coerce.number().int().min(1).default(512),
  // an org database unused this long is closed (its caches given back after a quarter of it); 0 keeps handles open
  ORG_DB_IDLE_SECONDS: z.coerce.number().int().min(0).default(300),
  JSON_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
  UPLOAD_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(50 * 1024 * 1024),
  // Input limits, checked before any validation (docs/platform/security.md)
  JSON_MAX_DEPTH: z.coerce.number().int().min(2).max(256).default(32),
  JSON_MAX_VALUES: z.coerce.number().int().positive().default(50_000),
  JSON_MAX_OBJECT_KEYS: z.coerce.number().int().positive().default(1_000),
  QUERY_MAX_PARAMS: z.coerce.number().int().positive().default(64),
  QUERY_MAX_BYTES: z.coerce.number().int().positive().default(8192),
  MULTIPART_MAX_FIELDS: z.coerce.number().int().positive().default(50),
  MULTIPART_MAX_FIELD_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(64 * 1024),
  // Login throttling and rate limits (docs/platform/security.md); RATE_LIMITS=off turns the general limits off
  LOGIN_MAX_FAILURES: z.coerce.number().int().positive().default(5),
  LOGIN_MAX_FAILURES_PER_ADDRESS: z.coerce.number().int().positive().default(30),
  LOGIN_LOCKOUT_SECONDS: z.coerce.number().positive().default(30),
  LOGIN_LOCKOUT_MAX_SECONDS: z.coerce.number().positive().default(900),
  LOGIN_FAILURE_WINDOW_SECONDS: z.coerce.number().positive().default(900),
  RATE_LIMITS: z.enum(["on", "off"]).default("on"),
  RATE_LIMIT_AUTH: z.string().default("5/s,30"),
  RATE_LIMIT_READ: z.string().default("100/s,500"),
  RATE_LIMIT_WRITE: z.string().default("50/s,200"),
  RATE_LIMIT_UPLOAD: z.string().default("5/s,30"),
  RATE_LIMIT_ADDRESS_FACTOR: z.coerce.number().positive().default(10),
  // Behind a proxy: the request header that carries the client's address (e.g. fly-client-ip); unset: the socket's address
  CLIENT_IP_HEADER: z.string().trim().toLowerCase().optional(),
  CONTROL_DATABASE_URL: z.string().optional(),
  CONTROL_DATABASE_AUTH_TOKEN: z.string().optional(),
  DEFAULT_SHARD_DSN: z.string().optional(),
  DEFAULT_SHARD_AUTH_TOKEN: z.string().optional(),
  QUEUE_DATABASE_URL: z.string().optional(),
  WORKERS: z.enum(["in-process", "external"]).default("in-process"),
  RESPONSE_SCHEMAS: z.enum(["trust", "validate", "strict"]).default("trust"),
  REDIS_URL: z.string().optional(),
  S3_BUCKET: z.string().optional(),
  S3_ENDPOINT: z.string().optional(),
  S3_REGION: z.string().default("us-east-1"),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  S3_FORCE_PATH_STYLE: z.stringbool().default(false),
  STORAGE_URL_SECRET: z.string().optional(),
  PUBLIC_BASE_URL: z.string().optional(),
  AUDIT_RETENTION_DAYS: z.coerce.number().int().positive().default(2555),
  // Virus scanning of uploads (docs/documents/virus-scanning.md): clamd when CLAMD_URL is set, else the builtin scanner
  CLAMD_URL: z.string().optional(),
  SCAN_SIGNATURES_FILE: z.string().optional(),
  SCAN_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
  // Document processing (docs/documents/documents.md): tesseract worker threads for OCR, and how long a download URL lives
  DOCUMENT_OCR_WORKERS: z.coerce.number().int().min(1).max(8).default(1),
  DOCUMENT_URL_TTL_SECONDS: z.coerce.number().int().min(10).max(86_400).default(300),
  // Account mail (docs/auth/account.md): SMTP when SMTP_URL is set, else the mail_outbox table; links point at PUBLIC_APP_URL
  SMTP_URL: z.string().optional(),
  MAIL_FROM: z.string().default("Cusp <no-reply@localhost>"),
  PUBLIC_APP_URL: z.url().default("http://localhost:3000"),
  PASSWORD_RESET_TTL_SECONDS: z.coerce.number().positive().default(3600),
  EMAIL_VERIFICATION_TTL_SECONDS: z.coerce.number().positive().default(86_400),
  // Identity-service webhook POST /api/v1/internal/auth/user-sync (docs/admin/admin.md): unset, the route answers 404
  USER_SYNC_SECRET: z.string().optional(),
  // Days between DELETE /api/v1/admin/orgs/{id} and the removal of the org's database by orgs.purge (docs/admin/admin.md)
  ORG_PURGE_GRACE_DAYS: z.coerce.number().min(0).max(3650).default(30),
  // Regions (docs/operations/deploy.md, "Edge regions"): an instance whose REGION is not PRIMARY_REGION is an edge instance
  // (fly sets FLY_REGION and PRIMARY_REGION); it reads replicas and sends writes to the primary region
  REGION: z.string().trim().min(1).max(32).optional(),
  PRIMARY_REGION: z.string().trim().min(1).max(32).optional(),
  // How an edge sends a request to the primary region: fly's fly-replay header, or forwarded by the edge itself to PRIMARY_URL
  EDGE_WRITES: z.enum(["fly-replay", "forward"]).optional(),
  PRIMARY_URL: z.url().optional(),
  // How long an edge read carrying a replication position waits for its replica to reach it before asking the primary
  EDGE_CATCH_UP_MS: z.coerce.number().int().min(0).max(10_000).default(500),
  // Where this instance keeps its replicas of turso-sync shards' org databases (default DATA_DIR/replicas)
  REPLICA_DIR: z.string().optional(),
  // 837D claim files (docs/insurance/claims.md, "Batches"): the submitter's id at the clearinghouse (default: from the org's slug),
  // the clearinghouse's id and name, and the usage indicator (P production, T test)
  CLAIMS_SUBMITTER_ID: X12Id.optional(),
  CLAIMS_RECEIVER_ID: X12Id.default("CLEARINGHOUSE"),
  CLAIMS_RECEIVER_NAME: z.string().trim().min(1).max(60).default("CLEARINGHOUSE"),
  CLAIMS_X12_USAGE: z.enum(["P", "T"]).default("P"),
});

export type RateLimit = { rate: number; burst: number };

/** "100/s,500": 100 tokens a second, a bucket of 500. Also "/m" (a minute). */
export function parseRateLimit(name: string, text: string): RateLimit {
  const m = /^(\d+(?:\.\d+)?)\/(s|m),(\d+)$/.exec(text.replace(/\s+/g, ""));
  if (!m) throw new Error(`${name} must look like "100/s,500" (rate per second or minute, then the burst), got "${text}"`);
  const rate = Number(m[1]) / (m[2] === "m" ? 60 : 1);
  const burst = Number(m[3]);
  if (!(rate > 0) || !(burst >= 1)) throw new Error(`${name}: the rate and the burst must be positive`);
  return { rate, burst };
}

export type Config = {
  env: string;
  production: boolean;
  port: number;
  reusePort: boolean;
  dataDir: string;
  logLevel: z.infer<typeof Env>["LOG_LEVEL"];
  bootstrapAdmin: { email: string; password: string; fromDefaults: boolean };
  jwtSecret: Uint8Array;
  authMode: "jwt" | "dev-stub";
  accessTokenTtl: number;
  refreshTokenTtl: number;
  orgDbCacheSize: number;
  orgDbIdleSeconds: number;
  jsonBodyLimit: number;
  uploadLimit: number;
  /** Bounds on what a request may carry, checked before validation. */
  inputLimits: {
    jsonMaxDepth: number;
    jsonMaxValues: number;
    jsonMaxObjectKeys: number;
    queryMaxParams: number;
    queryMaxBytes: number;
    multipartMaxFields: number;
    multipartMaxFieldBytes: number;
  };
  /** Failed-login lockout: per account and per client address, growing backoff. */
  loginThrottle: { maxFailures: number; maxFailuresPerAddress: number; lockoutSeconds: number; lockoutMaxSeconds: number; failureWindowSeconds: number };
  /** Token buckets per route class: `rate` tokens a second, at most `burst` saved; per address the factor times more. */
  rateLimits: {
    enabled: boolean;
    auth: RateLimit;
    read: RateLimit;
    write: RateLimit;
    upload: RateLimit;
    addressFactor: number;
  };
  /** The header a trusted proxy puts the client's address in (last entry of a list); unset: the socket's address. Rate limits, throttles, audit. */
  clientIpHeader?: string;
  control: { url: string; authToken?: string };
  defaultShard: { dsn: string; authToken?: string };
  queue: { url?: string; pgliteDir: string; workers: "in-process" | "external" };
  redisUrl?: string;
  storage:
    | { kind: "local"; dir: string; secret: Uint8Array; publicBaseUrl?: string }
    | { kind: "s3"; bucket: string; endpoint?: string; region: string; accessKeyId?: string; secretAccessKey?: string; forcePathStyle: boolean };
  auditRetentionDays: number;
  /** Virus scanning of uploads: clamd at `clamdUrl` (tcp:// or unix://), else the builtin scanner with `signaturesFile`'s hashes. */
  scan: { clamdUrl?: string; signaturesFile?: string; timeoutMs: number };
  documents: { ocrWorkers: number; urlTtlSeconds: number };
  /** How answers meet their route's response schema (platform/http/response-schemas.ts). */
  responseSchemas: "trust" | "validate" | "strict";
  /** Account mail: SMTP at `smtpUrl` when set, else the control database's mail_outbox; links start with `publicAppUrl`; token lifetimes in seconds. */
  mail: { smtpUrl?: string; from: string; publicAppUrl: string; passwordResetTtl: number; emailVerificationTtl: number };
  /** HMAC secret of the identity service's user-sync webhook; unset, the route is off (404). */
  userSyncSecret?: string;
  /** Days a deleted org's database is kept before orgs.purge removes it. */
  orgPurgeGraceDays: number;
  /** This instance's region and the primary region's; `edge` when they differ (platform/http/edge.ts). */
  regions: { region: string; primary: string; edge: boolean; writes: "fly-replay" | "forward"; primaryUrl?: string; catchUpMs: number };
  /** Where this instance keeps its replicas of replicated (turso-sync) org databases. */
  replicaDir: string;
  /** 837D files: the submitter id (unset: each org's slug), the clearinghouse's id and name, and the usage indicator. */
  claims: { submitterId?: string; receiverId: string; receiverName: string; usage: "P" | "T" };
};

/** A secret generated once and kept in DATA_DIR, so dev tokens survive restarts. */
function localSecret(dataDir: string, name: string): Uint8Array {
  const file = join(dataDir, `${name}.secret`);
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, randomBytes(48).toString("base64url"), { mode: 0o600 });
  }
  return new TextEncoder().encode(readFileSync(file, "utf8").trim());
}

export function loadConfig(source: Record<string, string | undefined> = process.env): Config {
  const e = Env.parse(source);
  const production = e.NODE_ENV === "production";
  const dataDir = resolve(e.DATA_DIR);
  if (production) {
    const missing = ["DPMS_ADMIN_EMAIL", "DPMS_ADMIN_PASSWORD", "DPMS_JWT_SECRET"].filter((k) => !source[k]);
    if (missing.length) throw new Error(`NODE_ENV=production requires ${missing.join(", ")}`);
    if (e.DPMS_AUTH_MODE === "dev-stub") throw new Error("DPMS_AUTH_MODE=dev-stub is refused in production");
  }
  if (e.USER_SYNC_SECRET && e.USER_SYNC_SECRET.length < 16) throw new Error("USER_SYNC_SECRET must be at least 16 characters");
  const region = e.REGION ?? source.FLY_REGION ?? e.PRIMARY_REGION ?? "local";
  const primaryRegion = e.PRIMARY_REGION ?? region;
  const edge = region !== primaryRegion;
  const writes = e.EDGE_WRITES ?? (source.FLY_APP_NAME ? "fly-replay" : "forward");
  if (edge && writes === "forward" && !e.PRIMARY_URL)
    throw new Error(`REGION ${region} is an edge of PRIMARY_REGION ${primaryRegion}: forwarding writes needs PRIMARY_URL`);
  const jwtSecret = e.DPMS_JWT_SECRET ? new TextEncoder().encode(e.DPMS_JWT_SECRET) : localSecret(dataDir, "jwt");
  return {
    env: e.NODE_ENV,
    production,
    port: e.PORT,
    reusePort: e.REUSE_PORT,
    dataDir,
    logLevel: e.LOG_LEVEL,
    bootstrapAdmin: {
      email: (e.DPMS_ADMIN_EMAIL ?? "admin@example.com").toLowerCase(),
      password: e.DPMS_ADMIN_PASSWORD ?? "admin-password",
      fromDefaults: !e.DPMS_ADMIN_EMAIL || !e.DPMS_ADMIN_PASSWORD,
    },
    jwtSecret,
    authMode: e.DPMS_AUTH_MODE,
    accessTokenTtl: e.ACCESS_TOKEN_TTL_SECONDS,
    refreshTokenTtl: e.REFRESH_TOKEN_TTL_SECONDS,
    orgDbCacheSize: e.ORG_DB_CACHE_SIZE,
    orgDbIdleSeconds: e.ORG_DB_IDLE_SECONDS,
    jsonBodyLimit: e.JSON_BODY_LIMIT_BYTES,
    uploadLimit: e.UPLOAD_LIMIT_BYTES,
    inputLimits: {
      jsonMaxDepth: e.JSON_MAX_DEPTH,
      jsonMaxValues: e.JSON_MAX_VALUES,
      jsonMaxObjectKeys: e.JSON_MAX_OBJECT_KEYS,
      queryMaxParams: e.QUERY_MAX_PARAMS,
      queryMaxBytes: e.QUERY_MAX_BYTES,
      multipartMaxFields: e.MULTIPART_MAX_FIELDS,
      multipartMaxFieldBytes: e.MULTIPART_MAX_FIELD_BYTES,
    },
    loginThrottle: {
      maxFailures: e.LOGIN_MAX_FAILURES,
      maxFailuresPerAddress: e.LOGIN_MAX_FAILURES_PER_ADDRESS,
      lockoutSeconds: e.LOGIN_LOCKOUT_SECONDS,
      lockoutMaxSeconds: e.LOGIN_LOCKOUT_MAX_SECONDS,
      failureWindowSeconds: e.LOGIN_FAILURE_WINDOW_SECONDS,
    },
    rateLimits: {
      enabled: e.RATE_LIMITS === "on",
      auth: parseRateLimit("RATE_LIMIT_AUTH", e.RATE_LIMIT_AUTH),
      read: parseRateLimit("RATE_LIMIT_READ", e.RATE_LIMIT_READ),
      write: parseRateLimit("RATE_LIMIT_WRITE", e.RATE_LIMIT_WRITE),
      upload: parseRateLimit("RATE_LIMIT_UPLOAD", e.RATE_LIMIT_UPLOAD),
      addressFactor: e.RATE_LIMIT_ADDRESS_FACTOR,
    },
    clientIpHeader: e.CLIENT_IP_HEADER || undefined,
    control: { url: e.CONTROL_DATABASE_URL ?? `file:${join(dataDir, "control.db")}`, authToken: e.CONTROL_DATABASE_AUTH_TOKEN },
    defaultShard: { dsn: e.DEFAULT_SHARD_DSN ?? `file:${join(dataDir, "shards", "local")}`, authToken: e.DEFAULT_SHARD_AUTH_TOKEN },
    queue: { url: e.QUEUE_DATABASE_URL, pgliteDir: join(dataDir, "queue"), workers: e.WORKERS },
    redisUrl: e.REDIS_URL,
    storage: e.S3_BUCKET
      ? {
          kind: "s3",
          bucket: e.S3_BUCKET,
          endpoint: e.S3_ENDPOINT,
          region: e.S3_REGION,
          accessKeyId: e.S3_ACCESS_KEY_ID,
          secretAccessKey: e.S3_SECRET_ACCESS_KEY,
          forcePathStyle: e.S3_FORCE_PATH_STYLE,
        }
      : {
          kind: "local",
          dir: join(dataDir, "documents"),
          secret: e.STORAGE_URL_SECRET ? new TextEncoder().encode(e.STORAGE_URL_SECRET) : localSecret(dataDir, "storage"),
          publicBaseUrl: e.PUBLIC_BASE_URL,
        },
    auditRetentionDays: e.AUDIT_RETENTION_DAYS,
    scan: { clamdUrl: e.CLAMD_URL || undefined, signaturesFile: e.SCAN_SIGNATURES_FILE || undefined, timeoutMs: e.SCAN_TIMEOUT_MS },
    documents: { ocrWorkers: e.DOCUMENT_OCR_WORKERS, urlTtlSeconds: e.DOCUMENT_URL_TTL_SECONDS },
    responseSchemas: e.RESPONSE_SCHEMAS,
    mail: {
      smtpUrl: e.SMTP_URL || undefined,
      from: e.MAIL_FROM,
      publicAppUrl: e.PUBLIC_APP_URL.replace(/\/+$/, ""),
      passwordResetTtl: e.PASSWORD_RESET_TTL_SECONDS,
      emailVerificationTtl: e.EMAIL_VERIFICATION_TTL_SECONDS,
    },
    userSyncSecret: e.USER_SYNC_SECRET || undefined,
    orgPurgeGraceDays: e.ORG_PURGE_GRACE_DAYS,
    regions: { region, primary: primaryRegion, edge, writes, primaryUrl: e.PRIMARY_URL, catchUpMs: e.EDGE_CATCH_UP_MS },
    replicaDir: resolve(e.REPLICA_DIR ?? join(dataDir, "replicas")),
    claims: {
      submitterId: e.CLAIMS_SUBMITTER_ID || undefined,
      receiverId: e.CLAIMS_RECEIVER_ID,
      receiverName: e.CLAIMS_RECEIVER_NAME,
      usage: e.CLAIMS_X12_USAGE,
    },
  };
}
