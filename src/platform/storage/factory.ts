import type { Config } from "@/config";
import type { ObjectStorage } from "./types";

/** Local disk with HMAC-signed URLs by default; S3 when S3_BUCKET is set. */
export async function createStorage(config: Config): Promise<ObjectStorage> {
  if (config.storage.kind === "s3") {
    const { S3Storage } = await import("./s3");
    return new S3Storage(config.storage);
  }
  const { LocalDiskStorage } = await import("./local");
  return new LocalDiskStorage(config.storage);
}
