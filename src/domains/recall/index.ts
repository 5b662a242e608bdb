import type { RouteModule } from "@/platform/http/route-module";

/** Recall: recall types, patients' recalls kept current by completed and scheduled work, the recall list and its summary (docs/recall/recall.md). */
export const recallModules: RouteModule[] = [];
