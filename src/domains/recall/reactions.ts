import type { Listener } from "@/platform/records/moments";

/** What the recall domain does when something happens elsewhere (platform/records/moments.ts; listed in src/reactions.ts). */
export const recallReactions: readonly Listener[] = [];
