/**
 * A library loaded on its first use rather than at start-up: native or large
 * libraries that many processes never call (images, SMTP, remote and
 * replicated shards). Each costs 5-16 MB of resident memory once loaded, and a
 * process pays that per instance (docs/operations/performance.md, "Memory").
 * `require` loads synchronously, so callers stay synchronous.
 */
export function onFirstUse<T>(load: () => T): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= load());
}

/** sharp (libvips, ~16 MB resident once loaded): thumbnails, OCR's image decoding, PDF pages, chart PNGs. */
export const sharp = onFirstUse(() => require("sharp") as typeof import("sharp").default);
