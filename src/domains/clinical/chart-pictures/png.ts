import { sharp } from "@/platform/on-first-use";

// An SVG the service drew, as a PNG `width` pixels across: rasterised at the
// density that gives that width (sharp's librsvg), so lines stay sharp at
// every size. The same SVG and width give the same bytes.

export async function svgToPng(svg: string, svgWidth: number, width: number): Promise<Uint8Array<ArrayBuffer>> {
  const density = Math.min(2400, Math.max(1, (72 * width) / svgWidth));
  const png = await sharp()(Buffer.from(svg), { density }).resize({ width }).flatten({ background: "#ffffff" }).png({ compressionLevel: 6 }).toBuffer();
  return new Uint8Array(png);
}
