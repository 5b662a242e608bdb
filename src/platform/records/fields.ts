import { z } from "zod";
import { hasAtMostTwoDecimals } from "@/platform/money";

// Field types shared by every domain's schemas.

/** A UUID in any case, handed to verbs lower-cased (ids are stored lower-case). Path ids are lower-cased by the guard. */
export const Uuid = z
  .string()
  .regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, "Invalid uuid")
  .toLowerCase();
export const DateTime = z.string().describe("UTC ISO 8601 date-time");
export const DateOnly = z.iso.date().describe("YYYY-MM-DD");
export const BaseVersion = z.number().int().min(1).describe("The version you read; stale values get 409 version_conflict");
export const BaseVersionQuery = z.coerce.number().int().min(1).describe("The version you read; stale values get 409 version_conflict");
/** A CSS hex colour, #RRGGBB or #RGB. */
export const HexColor = z.string().regex(/^#(?:[0-9A-Fa-f]{3}|[0-9A-Fa-f]{6})$/, "Must be a hex colour #RRGGBB or #RGB");
export const Ref = z.object({ uuid: z.string(), name: z.string().nullable() }).meta({ id: "Ref" });

// Building an Intl formatter costs ~30 µs; zone names are few, so remember answers.
const zoneAnswers = new Map<string, boolean>();
export function isIanaTimeZone(tz: string): boolean {
  let ok = zoneAnswers.get(tz);
  if (ok === undefined) {
    try {
      new Intl.DateTimeFormat("en-US", { timeZone: tz });
      ok = tz.includes("/") || tz === "UTC";
    } catch {
      ok = false;
    }
    if (zoneAnswers.size < 10_000) zoneAnswers.set(tz, ok);
  }
  return ok;
}

/** A real IANA time zone name (Intl knows it). */
export const TimeZone = z.string().min(1).max(64).refine(isIanaTimeZone, "Must be an IANA time zone name, e.g. America/New_York");

/** Fields every versioned record returns. */
export const RecordMeta = {
  id: z.string(),
  version: z.number().int(),
  created_at: DateTime,
  updated_at: DateTime,
};

/** Boolean query flags: true/false (also 1/0). */
export const QueryBool = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");

/**
 * A query parameter that takes several values: repeated (?a=x&a=y), comma
 * separated (?a=x,y) or both. Blank entries and duplicates are dropped.
 */
export function QueryList<T extends z.ZodType<string, string>>(item: T, max = 50) {
  return z
    .union([z.string(), z.array(z.string())])
    .transform((v) => [
      ...new Set(
        (Array.isArray(v) ? v : [v])
          .flatMap((s) => s.split(","))
          .map((s) => s.trim())
          .filter(Boolean),
      ),
    ])
    .pipe(z.array(item).min(1).max(max));
}

/** Dollars in a request: a number with at most two decimals, 0 (or `min`) to 1,000,000; stored as integer cents. */
export const DollarsInput = (min = 0) => z.number().min(min).max(1_000_000).refine(hasAtMostTwoDecimals, "Must have at most two decimals");

/** A date-time with an offset, stored as UTC, that must lie ahead (an expiry). */
export const FutureDateTime = z.iso
  .datetime({ offset: true })
  .transform((v) => new Date(v).toISOString())
  .refine((v) => v > new Date().toISOString(), "Must be in the future");
