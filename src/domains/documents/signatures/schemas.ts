import { z } from "zod";
import { BaseVersion, DateTime, RecordMeta, Uuid } from "@/platform/records/fields";

// Signature requests on a document and the signatures recorded against them
// (docs/documents/document-signatures-and-links.md).

export const SIGNER_ROLES = ["patient", "guardian", "provider", "staff", "witness", "other"] as const;
export const SIGNATURE_STATUSES = ["pending", "signed", "declined", "canceled"] as const;
export const SIGNATURE_TYPES = ["typed", "drawn"] as const;
export const SIGNERS_MAX = 10;
/** The largest drawn signature, in decoded PNG bytes. */
export const SIGNATURE_IMAGE_MAX_BYTES = 200 * 1024;
export const PNG_DATA_URL_PREFIX = "data:image/png;base64,";

export const DocumentSignature = z
  .object({
    ...RecordMeta,
    document_uuid: z.string(),
    signer_name: z.string(),
    signer_email: z.string().nullable(),
    signer_role: z.enum(SIGNER_ROLES),
    signer_patient_uuid: z.string().nullable().describe("The patient who signs, when the signer is one of the org's patients"),
    signer_user_uuid: z.string().nullable().describe("The signed-in user who recorded the signature or the decline (null while pending, and when a job did)"),
    signing_order: z.number().int().describe("Lower signs first; equal orders may sign in any order"),
    status: z.enum(SIGNATURE_STATUSES),
    signature_type: z.enum(SIGNATURE_TYPES).nullable(),
    signature_text: z.string().nullable().describe("The typed signature (typed signatures only)"),
    has_signature_image: z.boolean().describe("A drawn signature's PNG is stored; the image itself is never answered in lists"),
    signed_at: DateTime.nullable(),
    signed_version_number: z.number().int().nullable().describe("The document version that was signed (its confirmed version then)"),
    signed_sha256: z.string().nullable().describe("SHA-256 of exactly the file that was signed"),
    decline_reason: z.string().nullable(),
    requested_by: z.string().nullable().describe("The id of the user who requested the signature"),
  })
  .meta({ id: "DocumentSignature" });
export type DocumentSignature = z.infer<typeof DocumentSignature>;

export const DocumentSignatureList = z
  .object({ items: z.array(DocumentSignature).describe("By signing_order, then created_at") })
  .meta({ id: "DocumentSignatureList" });
export type DocumentSignatureList = z.infer<typeof DocumentSignatureList>;

const Signer = z.strictObject({
  signer_name: z.string().trim().min(1).max(200),
  signer_role: z.enum(SIGNER_ROLES),
  signer_email: z.email().max(320).nullable().optional(),
  signer_patient_uuid: Uuid.nullable().optional().describe("A live patient of this org"),
  signing_order: z.number().int().min(1).max(1000).optional().describe("Default: one after the highest order on the document so far"),
});

export const SignatureRequest = z.strictObject({
  signers: z.array(Signer).min(1).max(SIGNERS_MAX).describe(`1 to ${SIGNERS_MAX} signers, in the order given`),
});
export type SignatureRequest = z.infer<typeof SignatureRequest>;

const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
// the longest data URL that can hold SIGNATURE_IMAGE_MAX_BYTES: refused before anything is decoded
const DATA_URL_MAX = PNG_DATA_URL_PREFIX.length + Math.ceil(SIGNATURE_IMAGE_MAX_BYTES / 3) * 4;

/** Why a data URL is not an acceptable drawn signature (null: it is one). */
export function pngDataUrlProblem(url: string): string | null {
  if (!url.startsWith(PNG_DATA_URL_PREFIX)) return `Must be a ${PNG_DATA_URL_PREFIX} URL`;
  if (url.length > DATA_URL_MAX) return `The image must be at most ${SIGNATURE_IMAGE_MAX_BYTES} bytes`;
  const b64 = url.slice(PNG_DATA_URL_PREFIX.length);
  if (!b64.length || b64.length % 4 !== 0 || !BASE64.test(b64)) return "Must be valid base64";
  const bytes = Buffer.from(b64, "base64");
  if (bytes.length > SIGNATURE_IMAGE_MAX_BYTES) return `The image must be at most ${SIGNATURE_IMAGE_MAX_BYTES} bytes`;
  // the signature, then the IHDR chunk every PNG starts with
  if (bytes.length < 33 || PNG_MAGIC.some((b, i) => bytes[i] !== b) || bytes.toString("latin1", 12, 16) !== "IHDR") return "Must be a PNG image";
  return null;
}

export const SignBody = z
  .strictObject({
    signature_type: z.enum(SIGNATURE_TYPES),
    signature_text: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .describe("typed: required, the signer's typed signature (1-200 characters); drawn: not allowed"),
    signature_image: z
      .string()
      .optional()
      .describe(`drawn: required, a ${PNG_DATA_URL_PREFIX} URL of a PNG of at most ${SIGNATURE_IMAGE_MAX_BYTES} bytes; typed: not allowed`),
    base_version: BaseVersion.optional().describe("The signature's version you read; stale values get 409 version_conflict"),
  })
  // a missing companion field is reported as missing (invalid_type on an absent value), a misplaced one as value_error
  .superRefine((v, ctx) => {
    if (v.signature_type === "typed") {
      if (v.signature_text === undefined)
        ctx.addIssue({ code: "invalid_type", expected: "string", input: undefined, path: ["signature_text"], message: "Required for a typed signature" });
      if (v.signature_image !== undefined) ctx.addIssue({ code: "custom", path: ["signature_image"], message: "Only for a drawn signature" });
    } else {
      if (v.signature_image === undefined)
        ctx.addIssue({ code: "invalid_type", expected: "string", input: undefined, path: ["signature_image"], message: "Required for a drawn signature" });
      else {
        const problem = pngDataUrlProblem(v.signature_image);
        if (problem) ctx.addIssue({ code: "custom", path: ["signature_image"], message: problem });
      }
      if (v.signature_text !== undefined) ctx.addIssue({ code: "custom", path: ["signature_text"], message: "Only for a typed signature" });
    }
  });
export type SignBody = z.infer<typeof SignBody>;

export const DeclineBody = z.strictObject({
  reason: z.string().trim().min(1).max(1000).describe("Why the signer declined (kept on the signature, never in events)"),
  base_version: BaseVersion.optional().describe("The signature's version you read; stale values get 409 version_conflict"),
});
export type DeclineBody = z.infer<typeof DeclineBody>;

export const CancelBody = z
  .strictObject({ base_version: BaseVersion.optional().describe("The signature's version you read; stale values get 409 version_conflict") })
  .optional();
export type CancelBody = z.infer<typeof CancelBody>;
