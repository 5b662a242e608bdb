// Money is stored as integer cents and rendered as a two-decimal string.
// Requests carry numbers; converting them goes through the decimal string so
// binary floating point never decides a cent (0.1 + 0.2 style errors).

export function centsFromNumber(amount: number): number {
  if (!Number.isFinite(amount)) throw new RangeError("amount must be finite");
  const [whole, frac = ""] = Math.abs(amount).toFixed(6).split(".");
  const cents = Number(whole) * 100 + Number(frac.slice(0, 2)) + (Number(frac[2] ?? "0") >= 5 ? 1 : 0);
  return amount < 0 ? -cents : cents;
}

/** True when the number has no more than two decimals (e.g. 12.5, 12.50, not 12.505). */
export function hasAtMostTwoDecimals(amount: number): boolean {
  if (!Number.isFinite(amount)) return false;
  const s = Math.abs(amount).toFixed(6);
  return s.endsWith("0000");
}

export function formatCents(cents: number | null | undefined): string | null {
  if (cents === null || cents === undefined) return null;
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  return `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
}
