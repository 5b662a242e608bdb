import type { PlatformRuntime } from "@/platform/runtime";
import { LocalDiskStorage } from "@/platform/storage/local";
import { AppError, NotFound } from "@/platform/errors";

/** A local-disk document for the holder of a valid signed URL (no bearer token needed). */
export async function downloadSignedFile(rt: Pick<PlatformRuntime, "storage">, query: Record<string, string>): Promise<Response> {
  if (!(rt.storage instanceof LocalDiskStorage)) throw new NotFound("File");
  const ok = rt.storage.verify(query);
  if (!ok) throw new AppError(403, "invalid_signature", "The link is invalid or has expired");
  const bytes = await rt.storage.get(ok.key);
  if (!bytes) throw new NotFound("File");
  const name = ok.fileName.replace(/["\\\r\n]/g, "_");
  return new Response(bytes, {
    headers: { "content-type": ok.contentType, "content-disposition": `${ok.disposition}; filename="${name}"`, "cache-control": "private, no-store" },
  });
}
