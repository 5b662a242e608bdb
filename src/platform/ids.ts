import { createHash, randomBytes } from "node:crypto";

/** UUIDv7: time-ordered, so primary-key indexes stay append-mostly. */
export const newId = (): string => Bun.randomUUIDv7();
export const nowIso = (): string => new Date().toISOString();
export const sha256 = (s: string | Uint8Array): string => createHash("sha256").update(s).digest("hex");
export const randomToken = (bytes = 32): string => randomBytes(bytes).toString("base64url");
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
