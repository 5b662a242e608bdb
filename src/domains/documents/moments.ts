import { defineMoment } from "@/platform/records/moments";
import type { DocumentType } from "./schemas";

// What happens to a document that other domains react to (platform/records/moments.ts;
// who listens: docs/architecture.md, "Moments"). Announced inside the write that makes it happen.

export const documentSigned = defineMoment<{
  document_id: string;
  document_type: DocumentType;
  owner_type: string | null;
  owner_id: string | null;
  signature_count: number;
}>("document.signed", "The last pending signature of a document was signed: the document is now signed and locked");
