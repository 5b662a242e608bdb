import { reactionTable } from "./platform/records/moments";
import { clinicalReactions } from "./domains/clinical/reactions";
import { accountReactions } from "./domains/account/reactions";
import { insuranceReactions } from "./domains/insurance/reactions";
import { recallReactions } from "./domains/recall/reactions";

/**
 * What reacts to which moment, gathered from each domain's reactions.ts: the
 * composition root of reactions, as src/app.ts is of routes and
 * workers/registry.ts of jobs. A domain announces a moment without knowing
 * who listens (platform/records/moments.ts; docs/architecture.md, "Moments").
 * Within one moment, reactions run in this order.
 */
export const REACTIONS = reactionTable([...clinicalReactions, ...accountReactions, ...insuranceReactions, ...recallReactions]);
