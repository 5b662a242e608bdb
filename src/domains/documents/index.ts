import type { RouteModule } from "@/platform/http/route-module";

/**
 * Documents (spec.md "Documents", paths under {P}/documents): documents and
 * their versions, the processing pipeline's status, downloads, links,
 * signatures and the category tree (docs/documents.md).
 */
export const documentModules: RouteModule[] = [
  // one line per feature's route module
];
