import type { OrgSeed } from "./seed";
import { and, inArray, isNull } from "drizzle-orm";
import { definitions } from "@db/tenant/definitions";
import { procedureCodes } from "@db/tenant/codes";
import { recallTypes } from "@db/tenant/recall";
import { all, run } from "@/platform/db/work";
import { newId } from "@/platform/ids";

// The recall types every org starts with, each reset by completing one of its
// CDT codes (docs/recall/recall.md), and the recall statuses the front desk
// marks a recall with while working the list. Practices change, archive or add
// their own.

type SeedType = [key: string, name: string, interval: { months?: number; weeks?: number; days?: number }, triggers: string[], isPerio: boolean];

export const SEEDED_RECALL_TYPES: SeedType[] = [
  ["prophy", "Prophy", { months: 6 }, ["D0120", "D0150", "D1110"], false],
  ["perio", "Perio maintenance", { months: 3 }, ["D4910"], true],
  ["child_prophy", "Child prophy", { months: 6 }, ["D1120"], false],
  ["bitewings", "Bitewings", { months: 12 }, ["D0272", "D0274"], false],
  ["pano", "Panoramic X-ray", { months: 36 }, ["D0330"], false],
];

const RECALL_STATUSES: [name: string, value: string][] = [
  ["Left message", "left_message"],
  ["E-mailed", "emailed"],
  ["Texted", "texted"],
  ["Will call back", "will_call_back"],
  ["Declined", "declined"],
];

export const recallSeed: OrgSeed = {
  name: "recall",
  *run(tx, now) {
    const meta = { created_at: now, updated_at: now, version: 1 };
    const codes = SEEDED_RECALL_TYPES.flatMap(([, , , triggers]) => triggers);
    const found = yield* all(
      tx
        .select({ id: procedureCodes.id, code: procedureCodes.code })
        .from(procedureCodes)
        .where(and(inArray(procedureCodes.code, codes), isNull(procedureCodes.deleted_at))),
    );
    const idOf = new Map(found.map((c) => [c.code, c.id]));
    yield* run(
      tx.insert(recallTypes).values(
        SEEDED_RECALL_TYPES.map(([key, name, interval, triggers, isPerio]) => ({
          id: newId(),
          name,
          interval_months: interval.months ?? 0,
          interval_weeks: interval.weeks ?? 0,
          interval_days: interval.days ?? 0,
          trigger_procedure_code_ids: triggers.map((c) => idOf.get(c)).filter((id): id is string => !!id),
          is_perio: isPerio,
          seed_key: key,
          ...meta,
        })),
      ),
    );
    yield* run(
      tx.insert(definitions).values(
        RECALL_STATUSES.map(([item_name, item_value], item_order) => ({
          id: newId(),
          category: "recall_statuses",
          item_name,
          item_value,
          item_order,
          item_color: null,
          is_hidden: false,
          metadata: null,
          ...meta,
        })),
      ),
    );
  },
};
