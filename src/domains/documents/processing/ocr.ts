import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { sharp } from "@/platform/on-first-use";
import { createWorker, type Worker } from "tesseract.js";

/**
 * The English model shipped by @tesseract.js-data/eng (LSTM "best_int"). Loaded from disk with
 * caching off: nothing may be downloaded at run time and no *.traineddata is written to the cwd.
 */
const ENGLISH_MODEL_DIR = join(dirname(createRequire(import.meta.url).resolve("@tesseract.js-data/eng/package.json")), "4.0.0_best_int");

/** Longer sides are scaled down to this before OCR: phone photos (4000+ px) gain no accuracy and cost seconds. */
export const OCR_MAX_SIDE_PX = 2500;

export type OcrResult = {
  text: string;
  /** Tesseract's mean word confidence, scaled to 0..1 (2 decimals). */
  confidence: number;
};

export type OcrService = {
  recognize(image: Uint8Array): Promise<OcrResult>;
  /** Waits for running jobs, then terminates every worker; later calls to recognize reject. */
  close(): Promise<void>;
};

export type OcrServiceOptions = {
  /** Tesseract workers run in parallel threads; each holds ~30-60 MB. Default 1. */
  poolSize?: number;
  maxSidePx?: number;
  /** Test seam: how a worker is made. */
  createWorker?: () => Promise<Worker>;
};

/** The image could not be decoded (corrupt, or a format sharp's libvips cannot read, such as HEIC/HEVC). */
export class UnreadableImageError extends Error {
  constructor(cause: unknown) {
    super(`image cannot be decoded for OCR: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = "UnreadableImageError";
  }
}

export class OcrClosedError extends Error {
  constructor() {
    super("the OCR service is closed");
    this.name = "OcrClosedError";
  }
}

function createEnglishWorker(): Promise<Worker> {
  return createWorker("eng", 1, {
    langPath: ENGLISH_MODEL_DIR,
    cacheMethod: "none",
    gzip: true,
    // Without a handler tesseract.js rethrows a failed job inside its message listener,
    // an uncaught exception that would end the process; the job's promise rejects anyway.
    errorHandler: () => {},
  });
}

/**
 * Decodes whatever sharp can read (JPEG, PNG, TIFF incl. the compressions Leptonica rejects,
 * WebP, AVIF), applies the EXIF orientation, bounds the size and drops colour: greyscale PNG
 * is what Tesseract binarises anyway, and a smaller image is recognised faster.
 */
export async function prepareForOcr(image: Uint8Array, maxSidePx = OCR_MAX_SIDE_PX): Promise<Buffer> {
  try {
    return await sharp()(image, { failOn: "error" })
      .autoOrient()
      .resize({ width: maxSidePx, height: maxSidePx, fit: "inside", withoutEnlargement: true })
      .flatten({ background: "#ffffff" })
      // Single-channel output: greyscale() alone still writes three (equal) channels.
      .toColourspace("b-w")
      .png({ compressionLevel: 1 })
      .toBuffer();
  } catch (error) {
    throw new UnreadableImageError(error);
  }
}

/**
 * Whether this sharp build decodes HEIC. libvips lists ".heic" among heifload's suffixes only when
 * libheif has an HEVC decoder; sharp's prebuilt binaries ship AV1 (AVIF) only, for patent reasons.
 */
export function sharpCanDecodeHeic(): boolean {
  return sharp().format.heif.input.fileSuffix?.includes(".heic") ?? false;
}

type Waiter = { resolve: (worker: Worker) => void; reject: (error: unknown) => void };

/**
 * A small pool of Tesseract workers: created on first need (a worker costs ~0.2-0.4 s to start),
 * reused across jobs, and replaced when a job fails, since a worker whose job threw may hold
 * half-initialised state in its WASM heap.
 */
export function createOcrService(options: OcrServiceOptions = {}): OcrService {
  const poolSize = Math.max(1, Math.floor(options.poolSize ?? 1));
  const maxSidePx = options.maxSidePx ?? OCR_MAX_SIDE_PX;
  const spawn = options.createWorker ?? createEnglishWorker;

  const idle: Worker[] = [];
  const waiters: Waiter[] = [];
  const running = new Set<Promise<unknown>>();
  let liveWorkers = 0;
  let closed = false;

  function dispatch(): void {
    while (waiters.length > 0) {
      const worker = idle.pop();
      if (worker) {
        waiters.shift()?.resolve(worker);
        continue;
      }
      if (liveWorkers >= poolSize) return;
      const waiter = waiters.shift();
      if (!waiter) return;
      liveWorkers += 1;
      spawn().then(waiter.resolve, (error: unknown) => {
        liveWorkers -= 1;
        waiter.reject(error);
        dispatch();
      });
    }
  }

  function acquire(): Promise<Worker> {
    // A job may reach here after close() began (it was still being prepared): no new worker then.
    if (closed) return Promise.reject(new OcrClosedError());
    return new Promise<Worker>((resolve, reject) => {
      waiters.push({ resolve, reject });
      dispatch();
    });
  }

  function release(worker: Worker): void {
    if (closed) {
      liveWorkers -= 1;
      void worker.terminate().catch(() => {});
      return;
    }
    idle.push(worker);
    dispatch();
  }

  async function discard(worker: Worker): Promise<void> {
    liveWorkers -= 1;
    await worker.terminate().catch(() => {});
    if (!closed) dispatch();
  }

  async function runJob(image: Uint8Array): Promise<OcrResult> {
    const prepared = await prepareForOcr(image, maxSidePx);
    const worker = await acquire();
    let result: Awaited<ReturnType<Worker["recognize"]>>;
    try {
      result = await worker.recognize(prepared);
    } catch (error) {
      await discard(worker);
      throw error;
    }
    release(worker);
    return {
      text: result.data.text.trim(),
      confidence: Math.round(Math.max(0, Math.min(100, result.data.confidence))) / 100,
    };
  }

  return {
    recognize(image) {
      if (closed) return Promise.reject(new OcrClosedError());
      const job = runJob(image);
      running.add(job);
      const forget = () => running.delete(job);
      job.then(forget, forget);
      return job;
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const waiter of waiters.splice(0)) waiter.reject(new OcrClosedError());
      await Promise.allSettled([...running]);
      const workers = idle.splice(0);
      liveWorkers -= workers.length;
      await Promise.all(workers.map((worker) => worker.terminate().catch(() => {})));
    },
  };
}
