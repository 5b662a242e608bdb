// One error hierarchy for the whole service. Verbs throw these; the HTTP layer
// maps them to the contract's shapes in one place (platform/http/errors.ts).

export type ValidationIssue = { loc: (string | number)[]; msg: string; type: string };

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export class NotFound extends AppError {
  constructor(what = "Resource") {
    super(404, "not_found", `${what} not found`);
  }
}
export class Unauthorized extends AppError {
  constructor(message = "Missing or invalid credentials") {
    super(401, "unauthorized", message, { "WWW-Authenticate": "Bearer" });
  }
}
export class Forbidden extends AppError {
  constructor(message = "You do not have permission to do this") {
    super(403, "forbidden", message);
  }
}
export class Conflict extends AppError {
  constructor(message: string, code = "duplicate") {
    super(409, code, message);
  }
}
export class VersionConflict extends Conflict {
  constructor(current?: number) {
    super(current === undefined ? "The record has changed since base_version" : `The record is at version ${current}; reload and retry`, "version_conflict");
  }
}
export class BadRequest extends AppError {
  constructor(message: string, code = "bad_request") {
    super(400, code, message);
  }
}
export class PayloadTooLarge extends AppError {
  constructor(limit: number) {
    super(413, "payload_too_large", `Request body exceeds ${limit} bytes`);
  }
}
export class UnsupportedMediaType extends AppError {
  constructor(expected = "application/json") {
    super(415, "unsupported_media_type", `Content-Type must be ${expected}`);
  }
}
/** 429: a throttle or rate limit; `Retry-After` says in how many whole seconds to try again. */
export class TooManyRequests extends AppError {
  constructor(retryAfterSeconds: number, message = "Too many requests; try again later", headers: Record<string, string> = {}) {
    super(429, "rate_limited", message, { "Retry-After": String(Math.max(1, Math.ceil(retryAfterSeconds))), ...headers });
  }
}
/** 501: only for the operations spec.md itself names as not available yet (the smart-list actions of Phase 2). */
export class NotImplemented extends AppError {
  constructor(message: string) {
    super(501, "not_implemented", message);
  }
}
export class ServiceUnavailable extends AppError {
  constructor(message: string, retryAfterSeconds?: number) {
    super(503, "service_unavailable", message, retryAfterSeconds ? { "Retry-After": String(Math.ceil(retryAfterSeconds)) } : undefined);
  }
}
/** 422 with the contract's `detail` array; `code` is added for domain rules. */
export class ValidationFailed extends AppError {
  constructor(
    readonly issues: ValidationIssue[],
    code = "validation_error",
  ) {
    super(422, code, issues.map((i) => i.msg).join("; "));
  }
}

export function invalid(loc: (string | number)[], msg: string, type = "value_error", code?: string): ValidationFailed {
  return new ValidationFailed([{ loc, msg, type }], code);
}

export class InvalidTransition extends ValidationFailed {
  constructor(from: string, to: string, field = "status") {
    super([{ loc: ["body", field], msg: `Cannot change ${field} from ${from} to ${to}`, type: "invalid_transition" }], "invalid_transition");
  }
}

/**
 * A write refused because the org's database is frozen for a move to another
 * shard (platform/db/org-databases.ts). withTransaction waits for the move and
 * retries on the new database; anything that does not is answered 503.
 */
export class OrgMoving extends ServiceUnavailable {
  constructor(readonly movedToShardId: string | null) {
    super("The organization's database is being moved to another shard; try again shortly", 2);
  }
}
