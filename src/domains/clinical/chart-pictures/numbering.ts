import type { ToothNumbering } from "./model";

// Universal tooth numbers (what records hold) as FDI (ISO 3950) two-digit
// numbers: quadrant then position from the midline.

const PERMANENT_FDI = (n: number): string => {
  if (n <= 8) return `1${9 - n}`;
  if (n <= 16) return `2${n - 8}`;
  if (n <= 24) return `3${25 - n}`;
  return `4${n - 24}`;
};

const PRIMARY_FDI = (letter: string): string => {
  const i = letter.charCodeAt(0) - 65; // A = 0 ... T = 19
  if (i <= 4) return `5${5 - i}`;
  if (i <= 9) return `6${i - 4}`;
  if (i <= 14) return `7${15 - i}`;
  return `8${i - 14}`;
};

/** The label a Universal number ("1"-"32", "A"-"T") has in `numbering`; other values (supernumerary) are kept as they are. */
export function toothLabel(tooth: string, numbering: ToothNumbering): string {
  if (numbering === "universal") return tooth;
  if (/^\d+$/.test(tooth)) {
    const n = Number(tooth);
    return n >= 1 && n <= 32 ? PERMANENT_FDI(n) : tooth;
  }
  return /^[A-T]$/.test(tooth) ? PRIMARY_FDI(tooth) : tooth;
}
