import { eq, lt } from "drizzle-orm";
import { idempotencyRecords } from "@db/control/schema";
import { get, run } from "@/platform/db/work";
import { sha256 } from "@/platform/ids";
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { Conflict, ValidationFailed } from "@/platform/errors";
import type { ControlDatabase } from "@/platform/db/control";

const TTL_MS = 24 * 3600 * 1000;
const IN_PROGRESS = 0;

export class IdempotentReplay extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super("idempotent replay");
  }
}

/**
 * Stored responses can hold health data or one-time secrets (an invitation
 * token), so they are kept encrypted (AES-256-GCM, key derived from the
 * service secret) and readable only by the service.
 */
export class ResponseSealer {
  private readonly key: Buffer;
  constructor(secret: Uint8Array) {
    this.key = createHash("sha256").update("cusp:idempotency:").update(secret).digest();
  }
  seal(plain: string): string {
    const iv = randomBytes(12);
    const c = createCipheriv("aes-256-gcm", this.key, iv);
    const body = Buffer.concat([c.update(plain, "utf8"), c.final()]);
    return Buffer.concat([iv, c.getAuthTag(), body]).toString("base64");
  }
  open(sealed: string): string {
    const raw = Buffer.from(sealed, "base64");
    const d = createDecipheriv("aes-256-gcm", this.key, raw.subarray(0, 12));
    d.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString("utf8");
  }
}

/**
 * Idempotency-Key on any POST: the first response (status and body) is stored
 * for 24 hours per caller, org, path and key; the same key with the same body
 * replays it, with another body it is 409 idempotency_conflict. A reservation
 * row makes a concurrent duplicate wait-free: it gets 409 while the first runs.
 */
export async function beginIdempotent(
  control: ControlDatabase,
  sealer: ResponseSealer,
  parts: { orgId: string | null; userId: string; method: string; path: string; key: string; rawBody: string },
) {
  if (parts.key.length > 255) throw new ValidationFailed([{ loc: ["header", "idempotency-key"], msg: "Must be at most 255 characters", type: "out_of_range" }]);
  const scopeKey = sha256([parts.orgId ?? "-", parts.userId, parts.method, parts.path, parts.key].join("\n"));
  const requestHash = sha256(parts.rawBody);
  const now = new Date();
  const outcome = await control.write(function* (tx) {
    const existing = yield* get<{ request_hash: string; status: number; body: string; expires_at: string }>(
      tx.select().from(idempotencyRecords).where(eq(idempotencyRecords.scope_key, scopeKey)),
    );
    if (existing && existing.expires_at > now.toISOString()) {
      if (existing.request_hash !== requestHash) return { kind: "conflict" as const };
      if (existing.status === IN_PROGRESS) return { kind: "in_progress" as const };
      return { kind: "replay" as const, status: existing.status, body: existing.body };
    }
    if (existing) yield* run(tx.delete(idempotencyRecords).where(eq(idempotencyRecords.scope_key, scopeKey)));
    yield* run(
      tx.insert(idempotencyRecords).values({
        scope_key: scopeKey,
        request_hash: requestHash,
        status: IN_PROGRESS,
        body: "",
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + TTL_MS).toISOString(),
      }),
    );
    return { kind: "new" as const };
  });
  if (outcome.kind === "conflict") throw new Conflict("Idempotency-Key was already used with a different request body", "idempotency_conflict");
  if (outcome.kind === "in_progress") throw new Conflict("A request with this Idempotency-Key is still being processed", "idempotency_conflict");
  if (outcome.kind === "replay") throw new IdempotentReplay(outcome.status, outcome.body ? sealer.open(outcome.body) : "");
  return { scopeKey, requestHash };
}

/** Store the final response; server errors release the key so the client may retry. */
export async function finishIdempotent(control: ControlDatabase, sealer: ResponseSealer, scopeKey: string, status: number, body: string) {
  await control.write(function* (tx) {
    if (status >= 500) yield* run(tx.delete(idempotencyRecords).where(eq(idempotencyRecords.scope_key, scopeKey)));
    else
      yield* run(
        tx
          .update(idempotencyRecords)
          .set({ status, body: body ? sealer.seal(body) : "" })
          .where(eq(idempotencyRecords.scope_key, scopeKey)),
      );
  });
}

export async function purgeExpiredIdempotency(control: ControlDatabase): Promise<void> {
  const now = new Date().toISOString();
  await control.write((tx) => run(tx.delete(idempotencyRecords).where(lt(idempotencyRecords.expires_at, now))));
}

export function replayResponse(r: IdempotentReplay, requestId: string): Response {
  const headers: Record<string, string> = { "content-type": "application/json", "idempotent-replayed": "true", "x-request-id": requestId };
  const version = r.status < 300 ? recordVersionOf(r.body) : undefined;
  if (version !== undefined) headers.etag = `"${version}"`; // as the first answer had it (core.ts)
  return new Response(r.status === 204 ? null : r.body, { status: r.status, headers });
}

/** The version of a record answer (an object with an id and a numeric version), as core.ts sets the ETag from. */
function recordVersionOf(body: string): number | undefined {
  if (!body.startsWith("{")) return undefined;
  try {
    const parsed = JSON.parse(body) as { id?: unknown; version?: unknown };
    return typeof parsed.version === "number" && "id" in parsed ? parsed.version : undefined;
  } catch {
    return undefined;
  }
}
