import { z } from "zod";
import { DateTime, Ref } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";

export const COMMUNICATION_MODES = ["phone", "email", "mail", "in_person", "text", "fax"] as const;
export const COMMUNICATION_DIRECTIONS = ["sent", "received", "neither"] as const;
export const COMMUNICATION_SOURCES = ["user", "automated", "integration"] as const;

const Mode = z.enum(COMMUNICATION_MODES);
const Direction = z.enum(COMMUNICATION_DIRECTIONS);
const Source = z.enum(COMMUNICATION_SOURCES);

/** An instant: ISO 8601 with Z or ±HH:MM (a wall clock alone would be ambiguous). */
const Instant = z.iso.datetime({ offset: true }).refine((v) => v >= "1900" && v < "3000", "Year must be between 1900 and 2999");

// A few minutes of slack for the caller's clock.
const FUTURE_SLACK_MS = 5 * 60_000;

export const CommunicationLogCreate = z
  .strictObject({
    communicated_at: Instant.refine((v) => Date.parse(v) <= Date.now() + FUTURE_SLACK_MS, "Cannot be in the future")
      .optional()
      .describe("When it happened: ISO 8601 with Z or an offset, stored in UTC; default now"),
    mode: Mode,
    direction: Direction.describe("sent (by the practice), received (from the patient) or neither (e.g. an in-person note)"),
    communication_source: Source.default("user").describe("Who produced it: a person (user), an automated reminder, or an integration"),
    subject: z.string().trim().max(200).nullable().optional(),
    note: z.string().trim().min(1).max(10_000).describe("The content; never sent on the event stream"),
  })
  .meta({ readOnly: ["patient", "user"] });
export type CommunicationLogCreate = z.infer<typeof CommunicationLogCreate>;

export const CommunicationLog = z
  .object({
    id: z.string(),
    patient: Ref,
    communicated_at: DateTime,
    mode: Mode,
    direction: Direction,
    communication_source: Source,
    subject: z.string().nullable(),
    note: z.string(),
    user: Ref.nullable().describe("Who recorded the entry (the signed-in user; name as it was then); null for system actors"),
    created_at: DateTime,
  })
  .meta({ id: "CommunicationLog" });
export type CommunicationLog = z.infer<typeof CommunicationLog>;

export const CommunicationLogListQuery = z
  .strictObject({
    ...pagingQuery(50, 200),
    date_from: Instant.optional().describe("communicated_at on or after this instant (ISO 8601 with Z or an offset)"),
    date_to: Instant.optional().describe("communicated_at on or before this instant (inclusive)"),
    mode: Mode.optional(),
    direction: Direction.optional(),
    communication_source: Source.optional(),
    q: z.string().trim().min(1).max(200).optional().describe("Case-insensitive substring of the note (%, _ taken literally)"),
    sort_dir: z.enum(["asc", "desc"]).default("asc").describe("By communicated_at then id: asc oldest first (default), desc newest first"),
  })
  .superRefine((q, ctx) => {
    if (q.date_from && q.date_to && Date.parse(q.date_from) > Date.parse(q.date_to)) {
      ctx.addIssue({ code: "custom", path: ["date_to"], message: "Must not be before date_from" });
    }
  });
export type CommunicationLogListQuery = z.infer<typeof CommunicationLogListQuery>;
