import { Elysia } from "elysia";
import { z } from "zod";
import type { Runtime } from "../../platform/runtime";
import { guard } from "../../platform/http/guard";
import { errorSchemas } from "../../platform/http/openapi";
import { LOCAL_FILES_PATH, LocalDiskStorage } from "../../platform/storage/local";
import { AppError, NotFound } from "../../platform/errors";

/** Serves local-disk documents to holders of a valid signed URL (no bearer token needed). */
export const fileRoutes = (rt: Runtime) =>
  new Elysia({ tags: ["System"] })
    .use(guard(rt))
    .get(LOCAL_FILES_PATH, async ({ query }) => {
      if (!(rt.storage instanceof LocalDiskStorage)) throw new NotFound("File");
      const ok = rt.storage.verify(query);
      if (!ok) throw new AppError(403, "invalid_signature", "The link is invalid or has expired");
      const bytes = await rt.storage.get(ok.key);
      if (!bytes) throw new NotFound("File");
      const name = ok.fileName.replace(/["\\\r\n]/g, "_");
      return new Response(bytes, { headers: { "content-type": ok.contentType, "content-disposition": `${ok.disposition}; filename="${name}"`, "cache-control": "private, no-store" } });
    }, {
      public: true,
      query: z.object({ key: z.string(), exp: z.string(), d: z.string(), fn: z.string(), ct: z.string(), sig: z.string() }),
      response: { 200: z.string().meta({ contentMediaType: "application/octet-stream" }).describe("The file's bytes"), ...errorSchemas(403, 404, 422) },
      detail: { summary: "Download through a signed URL (local storage)", security: [] },
    });
