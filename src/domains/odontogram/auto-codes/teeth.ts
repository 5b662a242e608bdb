// Universal (ADA) tooth numbering: permanent teeth 1-32, primary teeth A-T.
// 1-16 run along the upper arch from the patient's right third molar to the
// left one, 17-32 back along the lower arch from left to right; A-J and K-T
// likewise for the primary teeth (second molar to second molar).

export const TOOTH_TYPES = ["incisor", "canine", "premolar", "molar"] as const;
export type ToothType = (typeof TOOTH_TYPES)[number];
export type Arch = "upper" | "lower";
export type Dentition = "primary" | "permanent";
export type ToothPosition = "anterior" | "posterior";

export type Tooth = { tooth: string; dentition: Dentition; arch: Arch; tooth_type: ToothType; tooth_position: ToothPosition };

const PERMANENT = /^(?:[1-9]|[12][0-9]|3[0-2])$/;
const PRIMARY = /^[A-T]$/;

/** What a tooth is, from its Universal number (1-32, or "1"-"32") or letter (A-T, any case); null for anything else. */
export function toothOf(input: string | number): Tooth | null {
  const s = String(input).trim().toUpperCase();
  if (PERMANENT.test(s)) {
    const n = Number(s);
    const inArch = n <= 16 ? n : n - 16; // 1..16 along the arch
    const fromMidline = inArch <= 8 ? 9 - inArch : inArch - 8; // 1 central incisor .. 8 third molar
    const type: ToothType = fromMidline <= 2 ? "incisor" : fromMidline === 3 ? "canine" : fromMidline <= 5 ? "premolar" : "molar";
    return described(String(n), "permanent", n <= 16 ? "upper" : "lower", type);
  }
  if (PRIMARY.test(s)) {
    const i = s.charCodeAt(0) - 65; // A = 0
    const inArch = i % 10;
    const fromMidline = inArch < 5 ? 5 - inArch : inArch - 4; // 1 central incisor .. 5 second molar
    const type: ToothType = fromMidline <= 2 ? "incisor" : fromMidline === 3 ? "canine" : "molar"; // no primary premolars
    return described(s, "primary", i < 10 ? "upper" : "lower", type);
  }
  return null;
}

function described(tooth: string, dentition: Dentition, arch: Arch, tooth_type: ToothType): Tooth {
  return { tooth, dentition, arch, tooth_type, tooth_position: tooth_type === "incisor" || tooth_type === "canine" ? "anterior" : "posterior" };
}
