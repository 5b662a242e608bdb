import { ERA_835_VERSION } from "@/domains/insurance/claims/x12/835";
import { isaSegment, X12, x12Stamp } from "@/domains/insurance/claims/x12/envelope";
import type { Adjustment835, CasGroup, Era835, EraClaim835, X12Envelope } from "@/domains/insurance/claims/x12/types";

// Writes 835 (005010X221A1) files for tests and benchmarks: what a payer's
// clearinghouse would send us, built from the same shape parse835 returns.
// The totals (BPR02, CLP03-05) are written as given, never recomputed, so a
// test can write a file that parses but does not add up; balancedClaim and
// balancedEra make ones that do. Plain string building: a 1,000-claim file
// takes milliseconds.

export type Era835InputClaim = Omit<EraClaim835, "index" | "problems">;

/** An Era835 without what the parser derives (claim index, problems), plus the envelope. */
export type Era835Input = Omit<Era835, "problems" | "claims"> & {
  claims: Era835InputClaim[];
  /** ISA/GS: defaults sender the payer's id, receiver "CUSP", control number 1, created on the payment date, usage P. */
  envelope?: Partial<X12Envelope>;
  /** GS08 and ST03; another to write a file the parser must refuse. Default 005010X221A1. */
  version?: string;
  /** A line break after each "~", for a readable file (default true); false writes one line. */
  newlines?: boolean;
};

const { element: ELEMENT, component: COMPONENT, segment: TERMINATOR } = X12;

/** Writes the file. Throws on a value holding a separator: the file would not mean what the input says. */
export function build835(input: Era835Input): string {
  const env = {
    sender_id: input.envelope?.sender_id ?? input.payer.id ?? "PAYER",
    receiver_id: input.envelope?.receiver_id ?? "CUSP",
    control_number: input.envelope?.control_number ?? 1,
    created_at: input.envelope?.created_at ?? new Date(`${input.payment_date}T12:00:00Z`),
    usage: input.envelope?.usage ?? "P",
  };
  const version = input.version ?? ERA_835_VERSION;
  const control = String(env.control_number);
  const st02 = control.padStart(4, "0");
  const { ccyymmdd, hhmm } = x12Stamp(env.created_at);

  const body: string[] = [];
  const add = (...elements: Value[]) => body.push(segment(elements));

  // Header: the money (BPR), its trace (TRN) and the production date.
  add(...bpr(input));
  add("TRN", "1", input.trace_number, "1940000000");
  add("DTM", "405", x12Date(input.payment_date));
  // 1000A payer, 1000B payee.
  add("N1", "PR", input.payer.name);
  add("N3", "PO BOX 2200");
  add("N4", "SAN FRANCISCO", "CA", "94126");
  if (input.payer.id) add("REF", "2U", input.payer.id);
  add("PER", "BL", "EDI SUPPORT", "TE", "8005550100");
  if (input.payee.npi) add("N1", "PE", input.payee.name, "XX", input.payee.npi);
  else if (input.payee.tax_id) add("N1", "PE", input.payee.name, "FI", input.payee.tax_id);
  else add("N1", "PE", input.payee.name);
  if (input.payee.tax_id) add("REF", "TJ", input.payee.tax_id);

  if (input.claims.length > 0) add("LX", "1");
  for (const c of input.claims) {
    add(
      "CLP",
      c.claim_number,
      c.status_code,
      money(c.billed_cents),
      money(c.paid_cents),
      c.patient_responsibility_cents ? money(c.patient_responsibility_cents) : "",
      "12",
      c.payer_claim_number,
      "11",
      "1",
    );
    for (const cas of casSegments(c.adjustments)) add(...cas);
    const p = c.patient;
    add("NM1", "QC", "1", p.last_name, p.first_name, "", "", "", p.member_id ? "MI" : "", p.member_id);
    if (c.date_service) add("DTM", "232", x12Date(c.date_service));
    for (const s of c.services) {
      add("SVC", ["AD", s.procedure_code], money(s.billed_cents), money(s.paid_cents));
      if (s.date_service) add("DTM", "472", x12Date(s.date_service));
      for (const cas of casSegments(s.adjustments)) add(...cas);
      if (s.line_control) add("REF", "6R", s.line_control);
      // Not a guide qualifier (the 835 has none for a tooth): where parse835 looks for it.
      if (s.tooth_number) add("REF", "JP", s.tooth_number);
      if (s.allowed_cents !== null) add("AMT", "B6", money(s.allowed_cents));
      for (const code of s.remark_codes) add("LQ", "HE", code);
    }
  }
  for (let i = 0; i < input.provider_adjustments.length; i += 6) {
    const pairs = input.provider_adjustments.slice(i, i + 6).flatMap((a): Value[] => [a.reference ? [a.reason, a.reference] : a.reason, money(a.amount_cents)]);
    add("PLB", input.payee.npi ?? input.payee.tax_id ?? "0000000000", `${input.payment_date.slice(0, 4)}1231`, ...pairs);
  }

  const lines = [
    isaSegment(env),
    segment(["GS", "HP", env.sender_id, env.receiver_id, ccyymmdd, hhmm, control, "X", version]),
    segment(["ST", "835", st02, version]),
    ...body,
    segment(["SE", body.length + 2, st02]),
    segment(["GE", "1", control]),
    segment(["IEA", "1", control.padStart(9, "0")]),
  ];
  const eol = input.newlines === false ? "" : "\n";
  return lines.map((l) => l + TERMINATOR).join(eol) + eol;
}

/** BPR: ACH with the bank details an EFT carries, CHK/NON/VCD with only the amount and date. */
function bpr(input: Era835Input): Value[] {
  const method = { check: "CHK", eft: "ACH", virtual_card: "VCD", other: "NON" }[input.payment_type];
  const handling = input.payment_type === "other" ? "H" : input.payment_type === "check" ? "C" : "I";
  const els: Value[] = ["BPR", handling, money(input.total_paid_cents), "C", method];
  if (method === "ACH") els.push("CCP", "01", "011000015", "DA", "123456789", "1940000000", "", "01", "026009593", "DA", "98765432");
  else els.push("", "", "", "", "", "", "", "", "", "", "");
  els.push(x12Date(input.payment_date));
  return els;
}

/** One CAS per group (the guide's rule), six reason/amount/quantity triplets at most per segment. */
function casSegments(adjustments: Adjustment835[]): Value[][] {
  const byGroup = new Map<CasGroup, Adjustment835[]>();
  for (const a of adjustments) byGroup.set(a.group, [...(byGroup.get(a.group) ?? []), a]);
  const out: Value[][] = [];
  for (const [group, list] of byGroup) {
    for (let i = 0; i < list.length; i += 6) out.push(["CAS", group, ...list.slice(i, i + 6).flatMap((a): Value[] => [a.reason, money(a.amount_cents), ""])]);
  }
  return out;
}

/** An element's value; an array is a composite, its components joined by ":". */
type Value = string | number | null | undefined | string[];

function segment(elements: Value[]): string {
  const values = elements.map((e) => (Array.isArray(e) ? e.map(checked).join(COMPONENT) : checked(e === null || e === undefined ? "" : String(e))));
  // X12 drops trailing empty elements (and empty trailing components).
  while (values.length > 1 && values[values.length - 1] === "") values.pop();
  return values.join(ELEMENT);
}

function checked(value: string): string {
  if (/[*~:^\r\n]/.test(value)) throw new Error(`build835: "${value}" holds an X12 separator`);
  return value;
}

/** Cents to X12 "R" dollars: no trailing zeros, no point for whole dollars (12000 is "120", 1250 is "12.5"). */
export function money(cents: number): string {
  if (!Number.isSafeInteger(cents)) throw new Error(`build835: ${cents} is not whole cents`);
  const abs = Math.abs(cents);
  const fraction = String(abs % 100)
    .padStart(2, "0")
    .replace(/0+$/, "");
  return `${cents < 0 ? "-" : ""}${Math.floor(abs / 100)}${fraction ? `.${fraction}` : ""}`;
}

function x12Date(iso: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(iso)) throw new Error(`build835: "${iso}" is not YYYY-MM-DD`);
  return iso.replaceAll("-", "");
}

// ---------------------------------------------------------------- balanced claims

/** One service line as a payer adjudicates it, in cents. */
export type BalancedLine = {
  code: string;
  billed: number;
  allowed: number;
  paid: number;
  /** Of the patient's share (allowed − paid), what went to the deductible: PR-1; the rest is coinsurance, PR-2. Default 0. */
  deductible?: number;
  /** CARC for billed − allowed, group CO: default 45 (over the fee schedule); 50 (not medically necessary) for a denial. */
  co_reason?: string;
  remarks?: string[];
  line_control?: string | null;
  /** Default 2024-03-01. */
  date?: string;
  tooth?: string | null;
};

export type BalancedClaimOptions = {
  /** Default "1" (processed as primary), "4" (denied) when no line pays and something was billed. */
  status_code?: string;
  payer_claim_number?: string | null;
  patient?: EraClaim835["patient"];
  /** Default: the earliest line date. */
  date_service?: string | null;
  /** Claim-level CAS (they do not enter the line arithmetic). */
  adjustments?: Adjustment835[];
};

/**
 * A claim whose numbers add up: per line CO = billed − allowed and PR =
 * allowed − paid (split PR-1 deductible, PR-2 coinsurance), so billed − CAS
 * = paid; the CLP totals are the lines' sums and CLP05 the PR total.
 */
export function balancedClaim(claim_number: string, lines: BalancedLine[], options: BalancedClaimOptions = {}): Era835InputClaim {
  const services = lines.map((l) => {
    const deductible = l.deductible ?? 0;
    const adjustments: Adjustment835[] = [];
    if (l.billed !== l.allowed) adjustments.push({ group: "CO", reason: l.co_reason ?? "45", amount_cents: l.billed - l.allowed });
    if (deductible !== 0) adjustments.push({ group: "PR", reason: "1", amount_cents: deductible });
    if (l.allowed - l.paid - deductible !== 0) adjustments.push({ group: "PR", reason: "2", amount_cents: l.allowed - l.paid - deductible });
    return {
      procedure_code: l.code,
      billed_cents: l.billed,
      paid_cents: l.paid,
      line_control: l.line_control ?? null,
      tooth_number: l.tooth ?? null,
      date_service: l.date ?? "2024-03-01",
      allowed_cents: l.allowed,
      adjustments,
      remark_codes: l.remarks ?? [],
    };
  });
  const billed = sumOf(lines.map((l) => l.billed));
  const paid = sumOf(lines.map((l) => l.paid));
  const dates = services.map((s) => s.date_service).sort();
  return {
    claim_number,
    status_code: options.status_code ?? (paid === 0 && billed !== 0 ? "4" : "1"),
    billed_cents: billed,
    paid_cents: paid,
    patient_responsibility_cents: sumOf(lines.map((l) => l.allowed - l.paid)),
    payer_claim_number: options.payer_claim_number === undefined ? `PCN${claim_number}` : options.payer_claim_number,
    patient: options.patient ?? { first_name: "JANE", last_name: "DOE", member_id: "M123456789" },
    date_service: options.date_service === undefined ? (dates[0] ?? null) : options.date_service,
    adjustments: options.adjustments ?? [],
    services,
  };
}

/** The payer taking a claim back (CLP02 22): every amount negated, so it still balances. */
export function reversalOf(claim: Era835InputClaim): Era835InputClaim {
  // 0 - x, not -x: a zero stays +0 (toEqual tells -0 from 0).
  const neg = (x: number) => 0 - x;
  const negate = (a: Adjustment835) => ({ ...a, amount_cents: neg(a.amount_cents) });
  return {
    ...claim,
    status_code: "22",
    billed_cents: neg(claim.billed_cents),
    paid_cents: neg(claim.paid_cents),
    patient_responsibility_cents: neg(claim.patient_responsibility_cents),
    adjustments: claim.adjustments.map(negate),
    services: claim.services.map((s) => ({
      ...s,
      billed_cents: neg(s.billed_cents),
      paid_cents: neg(s.paid_cents),
      allowed_cents: s.allowed_cents === null ? null : neg(s.allowed_cents),
      adjustments: s.adjustments.map(negate),
    })),
  };
}

/**
 * A whole ERA around the claims with a realistic payer and payee; BPR02 is
 * the claims' paid less the provider adjustments unless `total_paid_cents`
 * is given (to write one that does not add up).
 */
export function balancedEra(claims: Era835InputClaim[], overrides: Partial<Era835Input> = {}): Era835Input {
  const provider_adjustments = overrides.provider_adjustments ?? [];
  return {
    payer: { name: "DELTA DENTAL OF CALIFORNIA", id: "77777" },
    payee: { name: "BRIGHT SMILE DENTAL", npi: "1234567893", tax_id: "941234567" },
    trace_number: "EFT20240315001",
    payment_type: "eft",
    payment_date: "2024-03-15",
    ...overrides,
    claims,
    provider_adjustments,
    total_paid_cents: overrides.total_paid_cents ?? sumOf(claims.map((c) => c.paid_cents)) - sumOf(provider_adjustments.map((p) => p.amount_cents)),
  };
}

const sumOf = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
