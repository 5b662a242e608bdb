import type { JobContext } from "@/platform/queue/handlers";
import { makeThumbnail } from "@/domains/documents/processing/thumbnail";
import { runStep } from "./run-step";
import type { StepPayload } from "./jobs";
import { storageKeys } from "./services";

/**
 * documents.thumbnail: a JPEG (longest side 320 px) of the image or of a PDF's
 * first page, stored next to the version's file. DICOM and undecodable HEIC
 * get none (the step is skipped, has_thumbnail stays false). The last step:
 * the document becomes active.
 */
export default async function thumbnailDocument(jc: JobContext<StepPayload>) {
  return runStep(jc, "thumbnail", async ({ rt, ctx, doc, version, bytes }) => {
    const jpeg = await makeThumbnail(await bytes(), version.mime_type);
    if (!jpeg) return { status: "skipped", message: `no thumbnail is made for ${version.mime_type}`, document: { has_thumbnail: false } };
    // written before the step commits: a retry overwrites the same key, nothing is left behind twice
    const key = storageKeys(ctx.org.id, doc.id, version.version_number).thumbnail;
    await rt.storage.put(key, jpeg, "image/jpeg");
    return { status: "completed", result: { bytes: jpeg.byteLength }, version: { thumbnail_key: key }, document: { has_thumbnail: true } };
  });
}
