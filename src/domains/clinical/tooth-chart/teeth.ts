// The tooth chart's order and succession. What a tooth number is (Universal
// 1-32 and A-T, supernumerary 51-82 and AS-TS) and the chart's tooth-number
// field are the dental vocabulary's (src/domains/codes/dental-vocabulary.ts).

/** Chart order: 1-32, then A-T, then 51-82, then AS-TS. */
export function toothOrder(t: string): number {
  if (/^\d+$/.test(t)) return Number(t) + (Number(t) > 50 ? 100 : 0);
  return (t.length === 1 ? 100 : 200) + t.charCodeAt(0) - 65;
}
export const byTooth = <T extends { tooth_number: string }>(a: T, b: T) => toothOrder(a.tooth_number) - toothOrder(b.tooth_number);

/**
 * Each primary tooth's permanent successor (Universal numbering). Same arch and
 * side, same position from the midline: incisors by incisors, canines by canines,
 * primary first and second molars by the first and second premolars.
 */
export const SUCCESSOR: Readonly<Record<string, string>> = {
  A: "4",
  B: "5",
  C: "6",
  D: "7",
  E: "8",
  F: "9",
  G: "10",
  H: "11",
  I: "12",
  J: "13",
  K: "20",
  L: "21",
  M: "22",
  N: "23",
  O: "24",
  P: "25",
  Q: "26",
  R: "27",
  S: "28",
  T: "29",
};
