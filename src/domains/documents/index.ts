import type { RouteModule } from "@/platform/http/route-module";
import { documentCategoryRoutes } from "./categories/routes";
import { documentRoutes } from "./routes";
import { documentLinkRoutes } from "./links/routes";
import { documentSignatureRoutes } from "./signatures/routes";

/**
 * Documents (spec.md "Documents", paths under {P}/documents): documents and
 * their versions, the processing pipeline's status, downloads, links,
 * signatures and the category tree (docs/documents/documents.md).
 */
export const documentModules: RouteModule[] = [
  documentCategoryRoutes, // first: /documents/categories before /documents/:document_uuid
  documentRoutes,
  documentLinkRoutes,
  documentSignatureRoutes,
  // one line per feature's route module
];
