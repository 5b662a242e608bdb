import { z } from "zod";

export const ErrorBody = z
  .object({
    detail: z.string().describe("Human-readable message"),
    code: z.string().describe("snake_case error code, e.g. not_found, version_conflict"),
  })
  .meta({ id: "Error" });

export const ValidationErrorBody = z
  .object({
    detail: z.array(
      z.object({
        loc: z.array(z.union([z.string(), z.number()])).describe("Where: body, query, path or header, then the field path"),
        msg: z.string(),
        type: z.string().describe("missing, type_error, out_of_range, enum, format, extra_forbidden, read_only, json_invalid, value_error, ..."),
      }),
    ),
    code: z.string().optional().describe("Present for domain rules, e.g. invalid_transition"),
  })
  .meta({ id: "ValidationError" });

type Status = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 501 | 503;

/** Error response schemas for a route's documented error statuses. */
export function errorSchemas(...statuses: Status[]): Record<number, typeof ErrorBody | typeof ValidationErrorBody> {
  const out: Record<number, typeof ErrorBody | typeof ValidationErrorBody> = {};
  for (const s of statuses) out[s] = s === 422 ? ValidationErrorBody : ErrorBody;
  return out;
}
/** 204: no body. */
export const NoContent = z.void().describe("No content");

/** The statuses every org-scoped route can answer, besides its own. */
export const ORG_ROUTE_ERRORS = [401, 403, 404, 422] as const;
export const orgErrors = (...extra: Status[]) => errorSchemas(...ORG_ROUTE_ERRORS, ...extra);
export const platformErrors = (...extra: Status[]) => errorSchemas(401, 403, 422, ...extra);
