import { AppError, ValidationFailed } from "@/platform/errors";
import { issuesToDetail } from "./validation";
import type { Logger } from "@/platform/logger";
import { uniqueConflictOf } from "@/platform/db/constraints";
import { storageFailureOf } from "@/platform/db/failures";

export const JSON_HEADERS = { "content-type": "application/json" };

export function errorBody(err: AppError): Record<string, unknown> {
  if (err instanceof ValidationFailed) {
    return err.code === "validation_error" ? { detail: err.issues } : { detail: err.issues, code: err.code };
  }
  return { detail: err.message, code: err.code };
}

export function errorResponse(err: AppError, requestId?: string): Response {
  const headers: Record<string, string> = { ...JSON_HEADERS, ...err.headers };
  if (requestId) headers["x-request-id"] = requestId;
  return new Response(JSON.stringify(errorBody(err)), { status: err.status, headers });
}

type ElysiaErrorLike = { code?: unknown; status?: number; type?: string; value?: unknown; validator?: any; message?: string };

/**
 * The one place where any thrown error becomes the contract's error shape.
 * Unknown errors become a bare 500: no stack, SQL or input ever reaches a client.
 */
export function toAppError(code: string | number, error: unknown, logger: Logger, requestId: string): AppError {
  if (error instanceof AppError) return error;
  const cause = (error as { cause?: unknown })?.cause;
  if (cause instanceof AppError) return cause; // thrown from a parse hook and wrapped by Elysia
  const e = error as ElysiaErrorLike;
  if (code === "VALIDATION" && e.type !== "response") {
    const where = e.type === "query" ? "query" : e.type === "params" ? "path" : e.type === "headers" ? "header" : "body";
    const standard = e.validator?.["~standard"] ?? e.validator?.schema?.["~standard"];
    const result = standard?.validate(e.value);
    const issues = result && !(result instanceof Promise) ? (result.issues ?? []) : [];
    const meta = e.validator?.meta?.() ?? e.validator?.schema?.meta?.();
    const readOnly = new Set<string>((meta?.readOnly as string[] | undefined) ?? []);
    const detail = issuesToDetail(where, issues, readOnly, e.value);
    return new ValidationFailed(detail.length ? detail : [{ loc: [where], msg: "Invalid input", type: "value_error" }]);
  }
  if (code === "PARSE") return new ValidationFailed([{ loc: ["body"], msg: "Malformed JSON body", type: "json_invalid" }]);
  if (code === "NOT_FOUND") return new AppError(404, "not_found", "No such endpoint");
  if (code === "INVALID_COOKIE_SIGNATURE") return new AppError(400, "bad_request", "Invalid cookie");
  if (typeof e?.status === "number" && e.status >= 400 && e.status < 500 && e.status !== 422) {
    return new AppError(e.status, "bad_request", "Bad request");
  }
  const conflict = uniqueConflictOf(error);
  if (conflict) return conflict;
  const unavailable = storageFailureOf(error);
  if (unavailable) {
    logger.error(
      { request_id: requestId, err: { name: (error as Error)?.name, message: (error as Error)?.message } },
      "storage or service failure: answered 503",
    );
    return unavailable;
  }
  logger.error(
    { request_id: requestId, err: { name: (error as Error)?.name, message: (error as Error)?.message, stack: (error as Error)?.stack }, code },
    "unhandled error",
  );
  return new AppError(500, "internal_error", "Internal server error");
}
