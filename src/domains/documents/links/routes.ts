import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { NoContent, orgErrors } from "@/platform/http/openapi";
import { DocumentLink, DocumentLinkCreate, DocumentLinkDeleteQuery, DocumentLinkList } from "./schemas";
import { createLink, deleteLink, listLinks } from "./service";

const DOC_404 = "404 when the document is missing, archived or another org's.";
const NOT_CONTENT = "Links are not the document's content: a locked (signed) document may still be linked and unlinked, and its own version does not change.";

/** Links from a document to patients, appointments, charted procedures, treatment plans and insurance drafts. */
export const documentLinkRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.documents.links", prefix: "/api/v1/:org_id/documents/:document_uuid", tags: ["Documents"] })
    .use(guard(rt))
    .get("/links", ({ ctx, params }) => listLinks(ctx, params.document_uuid), {
      permission: "documents.read",
      response: { 200: DocumentLinkList, ...orgErrors() },
      detail: {
        summary: "List a document's links",
        description: `The live links, oldest first (not paged), each with a readable target_name where the target has one (patient "First Last", appointment scheduled_start, treatment plan name, charted procedure code; insurance drafts null). ${DOC_404}`,
      },
    })
    .post(
      "/links",
      async ({ ctx, params, body, set }) => {
        set.status = 201;
        return createLink(ctx, params.document_uuid, body);
      },
      {
        permission: "documents.write",
        body: DocumentLinkCreate,
        response: { 201: DocumentLink, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Link a document to a record",
          description: `target_type and target_uuid are required; the target must be a live record of this org of that type (else 422 at target_uuid). 409 duplicate when the document already has a live link to the same target. ${NOT_CONTENT} ${DOC_404}`,
        },
      },
    )
    .delete(
      "/links/:link_uuid",
      async ({ ctx, params, query, set }) => {
        await deleteLink(ctx, params.document_uuid, params.link_uuid, query.base_version);
        set.status = 204;
      },
      {
        permission: "documents.write",
        query: DocumentLinkDeleteQuery,
        response: { 204: NoContent, ...orgErrors(409) },
        detail: {
          summary: "Remove a document link",
          description: `Soft delete with ?base_version=: the link leaves the list (the same target may be linked again). 404 unless the link is a live link of this document; 409 version_conflict on a stale base_version. ${NOT_CONTENT} ${DOC_404}`,
        },
      },
    );
