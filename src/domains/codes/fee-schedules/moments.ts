import { defineMoment } from "@/platform/records/moments";

// What happens to fee schedules that other domains react to (platform/records/moments.ts;
// who listens: docs/architecture.md, "Moments"). Announced by service.ts and copy.ts
// inside the write that makes it happen.

/** Schedule types whose fees are allowed amounts (insurance estimates read them). */
export const ALLOWED_AMOUNT_TYPES: readonly string[] = ["ppo", "allowed"];

export const allowedFeesChanged = defineMoment<{ fee_schedule_id: string; schedule_type: string }>(
  "fee_schedule.allowed_fees_changed",
  "The fees of a ppo or allowed fee schedule changed (written, deleted, copied in), or a schedule became or stopped being one, or was archived",
);
