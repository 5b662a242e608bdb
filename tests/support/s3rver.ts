// An S3-compatible server of a test's own (s3rver, a dev dependency) on
// 127.0.0.1 with a random port, over a temporary directory.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
// @ts-ignore -- s3rver ships no type declarations; the part used here is typed below
import S3rverUntyped from "s3rver";

export const BUCKET = "cusp-documents";

type S3rverServer = { run(): Promise<{ address: string; port: number }>; close(): Promise<void> };
const S3rver = S3rverUntyped as new (options: {
  address: string;
  port: number;
  silent: boolean;
  directory: string;
  configureBuckets: { name: string; configs: string[] }[];
}) => S3rverServer;

/** s3rver with the bucket pre-created; `stop()` and `start()` take it away and back on the same port and files. */
export async function startS3rver() {
  const dir = await mkdtemp(join(tmpdir(), "cusp-storage-s3rver-"));
  const make = (port: number) => new S3rver({ address: "127.0.0.1", port, silent: true, directory: dir, configureBuckets: [{ name: BUCKET, configs: [] }] });
  let server = make(0);
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    /** The S3 settings of the service's environment for this server. */
    env: {
      S3_BUCKET: BUCKET,
      S3_ENDPOINT: `http://127.0.0.1:${port}`,
      S3_ACCESS_KEY_ID: "S3RVER",
      S3_SECRET_ACCESS_KEY: "S3RVER",
      S3_FORCE_PATH_STYLE: "true",
    },
    stop: () => server.close(),
    async start() {
      server = make(port);
      await server.run();
    },
    close: async () => {
      await server.close().catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
}
