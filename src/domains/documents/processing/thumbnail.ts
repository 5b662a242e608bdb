import { sharp } from "@/platform/on-first-use";
import { sharpCanDecodeHeic } from "./ocr";
import { renderPdfPage } from "./pdf";

export const THUMBNAIL_LONGEST_SIDE_PX = 320;
export const THUMBNAIL_JPEG_QUALITY = 80;

/** PDF page 1 is rendered at this scale (~2x the thumbnail's size for a letter page) before the downscale. */
const PDF_THUMBNAIL_RENDER_SCALE = 1;

const SHARP_IMAGE_MIMES = new Set(["image/jpeg", "image/png", "image/tiff"]);
const HEIF_MIMES = new Set(["image/heic", "image/heif", "image/heic-sequence", "image/heif-sequence"]);

async function toThumbnailJpeg(image: Uint8Array): Promise<Uint8Array> {
  const jpeg = await sharp()(image, { failOn: "error" })
    .autoOrient()
    .resize({ width: THUMBNAIL_LONGEST_SIDE_PX, height: THUMBNAIL_LONGEST_SIDE_PX, fit: "inside" })
    // JPEG has no alpha: transparent PNG regions would otherwise turn black.
    .flatten({ background: "#ffffff" })
    .jpeg({ quality: THUMBNAIL_JPEG_QUALITY, mozjpeg: true })
    .toBuffer();
  return new Uint8Array(jpeg);
}

/**
 * A JPEG preview, longest side 320 px, EXIF-rotated: of the image itself, or of a PDF's first page.
 * null when there is nothing sharp can draw: DICOM (its pixels need the modality LUT and
 * windowing, often in JPEG-2000/JPEG-LS that libvips cannot decode), and HEIC on builds whose
 * libvips lacks an HEVC decoder (sharp's prebuilt binaries). `mime` is the sniffed type.
 */
export async function makeThumbnail(bytes: Uint8Array, mime: string): Promise<Uint8Array | null> {
  if (mime === "application/pdf") return toThumbnailJpeg(await renderPdfPage(bytes, 1, PDF_THUMBNAIL_RENDER_SCALE));
  if (SHARP_IMAGE_MIMES.has(mime)) return toThumbnailJpeg(bytes);
  if (HEIF_MIMES.has(mime) && sharpCanDecodeHeic()) return toThumbnailJpeg(bytes);
  return null;
}

export type ImageInfo = {
  /** After EXIF orientation: what a person sees. */
  width: number;
  height: number;
  /** No pixel differs noticeably between its colour channels (radiographs, greyscale scans). */
  greyscale: boolean;
};

/** A colour image whose channels differ by less than this at every sampled pixel is greyscale (JPEG noise stays under it). */
const GREYSCALE_CHANNEL_TOLERANCE = 12;
const GREYSCALE_SAMPLE_SIDE_PX = 64;

/** Size and colourfulness of an image, for the classifier; null when sharp cannot decode it. */
export async function imageInfo(bytes: Uint8Array): Promise<ImageInfo | null> {
  try {
    const image = sharp()(bytes, { failOn: "error" });
    const metadata = await image.metadata();
    const { width, height } = metadata.autoOrient;
    if (metadata.channels <= 2) return { width, height, greyscale: true };
    const { data, info } = await image
      .clone()
      .resize(GREYSCALE_SAMPLE_SIDE_PX, GREYSCALE_SAMPLE_SIDE_PX, { fit: "fill" })
      .removeAlpha()
      .toColourspace("srgb")
      .raw()
      .toBuffer({ resolveWithObject: true });
    let greyscale = true;
    for (let offset = 0; offset + 2 < data.length && greyscale; offset += info.channels) {
      const [red, green, blue] = [data[offset], data[offset + 1], data[offset + 2]];
      greyscale = Math.max(red, green, blue) - Math.min(red, green, blue) < GREYSCALE_CHANNEL_TOLERANCE;
    }
    return { width, height, greyscale };
  } catch {
    return null;
  }
}
