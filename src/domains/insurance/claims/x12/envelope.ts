import type { X12Envelope } from "./types";

// The interchange envelope every X12 file we write shares (837D out, and the
// 835s tests and benchmarks write): the separators, the ISA with its fixed
// widths, and the date and time stamps of ISA, GS and BHT.

export const X12 = { element: "*", component: ":", repetition: "^", segment: "~" } as const;

/** CCYYMMDD and HHMM of an instant, in UTC. */
export function x12Stamp(at: Date): { ccyymmdd: string; hhmm: string } {
  const p = (n: number) => String(n).padStart(2, "0");
  return {
    ccyymmdd: `${at.getUTCFullYear()}${p(at.getUTCMonth() + 1)}${p(at.getUTCDate())}`,
    hhmm: `${p(at.getUTCHours())}${p(at.getUTCMinutes())}`,
  };
}

/**
 * The ISA segment without its terminator: every element at its fixed width
 * (105 characters; 106 with the "~"), version 00501, no acknowledgment asked.
 * Throws when an id or the control number would not fit.
 */
export function isaSegment(env: X12Envelope): string {
  const { ccyymmdd, hhmm } = x12Stamp(env.created_at);
  const text = [
    "ISA",
    "00",
    " ".repeat(10),
    "00",
    " ".repeat(10),
    "ZZ",
    env.sender_id.padEnd(15),
    "ZZ",
    env.receiver_id.padEnd(15),
    ccyymmdd.slice(2),
    hhmm,
    X12.repetition,
    "00501",
    String(env.control_number).padStart(9, "0"),
    "0",
    env.usage,
    X12.component,
  ].join(X12.element);
  if (text.length !== 105) throw new Error(`ISA would be ${text.length + 1} characters (ids up to 15, control number up to 9 digits)`);
  return text;
}
