import { z } from "zod";
import { defineJob } from "@/platform/queue/jobs";

/**
 * Moves open balances between the aging buckets as days pass (docs/account/account.md):
 * re-ages, in every org, the patients whose `ledger_aging.next_change_on` has
 * come. Daily just after midnight UTC (aging days are UTC days); a missed day
 * is made up once on the next start, and a late run catches up on every day it
 * missed (due dates are compared with <=).
 */
export const ledgerAgeBalances = defineJob({
  id: "ledger.age-balances",
  description: "Re-age patient balances whose aging bucket moves today",
  payload: z.object({}).strict(),
  cron: "5 0 * * *",
  missed: "once",
  queue: { retryLimit: 3, retryDelay: 60, retryBackoff: true, expireInSeconds: 3600 },
});
