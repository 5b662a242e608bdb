import { X12FatInterchange, type X12Interchange, X12Parser } from "node-x12";
import type { Adjustment835, CasGroup, Era835, EraClaim835, EraService835 } from "./types";

// The 835 (005010X221A1, health care claim payment/advice, "ERA") parser:
// text in, plain data out (types.ts), nothing read or written elsewhere.
// node-x12 tokenizes the interchange and checks the envelope (strict mode:
// separators from the ISA, SE/GE/IEA counts and control numbers); the
// segments of the one transaction set are then walked in order, the loop a
// segment belongs to being known from the segment that opened it (N1, CLP,
// SVC). Amounts are parsed from their text into integer cents, never through
// a float. Numbers that do not add up are reported in `problems`, not thrown:
// the payer's file is what it is, and the caller decides what to trust.

export const ERA_835_VERSION = "005010X221A1";

/** The text is not an 835 this parser can read; the message says why. */
export class Era835Error extends Error {
  constructor(message: string) {
    super(message);
    this.name = "Era835Error";
  }
}

const CAS_GROUPS: readonly string[] = ["CO", "PR", "OI", "PI", "CR"] satisfies CasGroup[];

/** A segment as strings: [0] is the tag, [n] the nth element (so `s[2]` is XX02). */
type Seg = string[];

/**
 * Parses one 835 interchange (one GS, one ST). Throws Era835Error when the
 * text is not X12, not one 005010X221A1 835, or lacks BPR, TRN, N1*PR or N1*PE.
 */
export function parse835(text: string): Era835 {
  const { segments, subSep } = readTransaction(text);
  return walk(segments, subSep);
}

// ---------------------------------------------------------------- envelope

function readTransaction(text: string): { segments: Seg[]; subSep: string } {
  // node-x12 reads the separators at fixed offsets of the ISA: a BOM or a
  // leading blank line would shift them.
  const edi = text.replace(/^\uFEFF/, "").trimStart();
  let parsed: X12Interchange | X12FatInterchange;
  try {
    parsed = new X12Parser(true).parse(edi);
  } catch (e) {
    throw new Era835Error(`Not a readable X12 file: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (parsed instanceof X12FatInterchange) throw new Era835Error(`Expected one interchange (ISA), found ${parsed.interchanges.length}`);
  const interchange = parsed;
  if (interchange?.header?.tag !== "ISA") throw new Era835Error("Not an X12 file: it does not begin with an ISA segment");
  // node-x12 does not notice a file cut short; a missing trailer means part of the payment may be missing too.
  if (!interchange.trailer) throw new Era835Error("The file is truncated: no IEA (interchange trailer) segment");
  const transactions = interchange.functionalGroups.flatMap((g) => {
    if (!g.trailer) throw new Era835Error("The file is truncated: a functional group has no GE trailer");
    return g.transactions.map((t) => ({ group: g, transaction: t }));
  });
  if (transactions.length !== 1) throw new Era835Error(`Expected exactly one transaction set (ST), found ${transactions.length}`);
  const { group, transaction } = transactions[0];
  if (!transaction.trailer) throw new Era835Error("The file is truncated: the transaction set has no SE trailer");

  const st01 = transaction.header.valueOf(1) ?? "";
  if (st01 !== "835") throw new Era835Error(`Not an 835: the transaction set is ${st01 || "unnamed"} (ST01)`);
  // GS08 is required; ST03 is required by the 5010 guides but absent from 4010 files, so compare it when present.
  const gs08 = group.header.valueOf(8) ?? "";
  const st03 = transaction.header.valueOf(3) ?? "";
  if (gs08 !== ERA_835_VERSION || (st03 !== "" && st03 !== ERA_835_VERSION)) {
    const found = gs08 !== ERA_835_VERSION ? gs08 || "none given" : st03;
    throw new Era835Error(`ERA of another version: ${found} (GS08/ST03), expected ${ERA_835_VERSION}`);
  }
  return {
    segments: transaction.segments.map((s) => [s.tag, ...s.elements.map((e) => e.value)]),
    subSep: interchange.options.subElementDelimiter ?? ":",
  };
}

// ---------------------------------------------------------------- the walk

type Loop = "header" | "payer" | "payee" | "other" | "claim" | "service" | "summary";

function walk(segments: Seg[], subSep: string): Era835 {
  let bpr: Seg | null = null;
  let trn: Seg | null = null;
  let payer: Era835["payer"] | null = null;
  let payee: Era835["payee"] | null = null;
  const claims: EraClaim835[] = [];
  /** Per claim: DTM*232, and the NM1*IL member id that wins over NM1*QC's. */
  const claimDates: (string | null)[] = [];
  const subscriberIds: (string | null)[] = [];
  const providerAdjustments: Era835["provider_adjustments"] = [];
  let claim: EraClaim835 | null = null;
  let service: EraService835 | null = null;
  let loop: Loop = "header";

  for (const s of segments) {
    const tag = s[0];
    const where = () => (claim ? `${tag} in claim ${claim.index + 1} (${claim.claim_number})` : tag);
    switch (tag) {
      case "BPR":
        bpr = s;
        break;
      case "TRN":
        // A second TRN (2000) would be unusual; the header's is the payment's trace.
        trn ??= s;
        break;
      case "N1":
        service = null;
        if (s[1] === "PR") {
          loop = "payer";
          payer = { name: s[2] ?? "", id: s[4] || null };
        } else if (s[1] === "PE") {
          loop = "payee";
          payee = { name: s[2] ?? "", npi: s[3] === "XX" ? s[4] || null : null, tax_id: s[3] === "FI" ? s[4] || null : null };
        } else {
          loop = "other";
        }
        break;
      case "REF":
        if (loop === "payer" && s[1] === "2U" && payer) payer.id ??= s[2] || null;
        else if (loop === "payee" && s[1] === "TJ" && payee) payee.tax_id ??= s[2] || null;
        else if (loop === "service" && service) {
          if (s[1] === "6R") service.line_control = s[2] || null;
          // The 835 has no tooth qualifier: we read REF*JP (TOO01's tooth numbering code), which build835 writes.
          else if (s[1] === "JP") service.tooth_number ??= s[2] || null;
        }
        break;
      case "TOO":
        // Not in the 835 guide: read in case a payer echoes the 837D's TOO.
        if (loop === "service" && service) service.tooth_number ??= s[2] || null;
        break;
      case "LX":
        loop = "header";
        claim = null;
        service = null;
        break;
      case "CLP": {
        if (!s[1]) throw new Era835Error(`CLP ${claims.length + 1} has no claim number (CLP01)`);
        claim = {
          index: claims.length,
          claim_number: s[1],
          status_code: s[2] ?? "",
          billed_cents: amount(s[3], `CLP03 of claim ${s[1]}`),
          paid_cents: amount(s[4], `CLP04 of claim ${s[1]}`),
          patient_responsibility_cents: s[5] ? amount(s[5], `CLP05 of claim ${s[1]}`) : 0,
          payer_claim_number: s[7] || null,
          patient: { first_name: null, last_name: null, member_id: null },
          date_service: null,
          adjustments: [],
          services: [],
          problems: [],
        };
        claims.push(claim);
        claimDates.push(null);
        subscriberIds.push(null);
        service = null;
        loop = "claim";
        break;
      }
      case "CAS": {
        if (loop === "service" && service) service.adjustments.push(...adjustments(s, where()));
        else if (loop === "claim" && claim) claim.adjustments.push(...adjustments(s, where()));
        else throw new Era835Error("CAS outside a claim or service line");
        break;
      }
      case "NM1":
        if (loop === "claim" && claim) {
          if (s[1] === "QC") {
            claim.patient.last_name = s[3] || null;
            claim.patient.first_name = s[4] || null;
            claim.patient.member_id = s[9] || null;
          } else if (s[1] === "IL") {
            subscriberIds[claim.index] = s[9] || null;
          }
        }
        break;
      case "DTM":
        if (loop === "claim" && claim && s[1] === "232") claimDates[claim.index] = date(s[2], where());
        else if (loop === "service" && service && (s[1] === "472" || (s[1] === "150" && !service.date_service))) service.date_service = date(s[2], where());
        break;
      case "SVC": {
        if (!claim) throw new Era835Error("SVC outside a claim (no CLP before it)");
        const composite = (s[1] ?? "").split(subSep);
        // AD is the CDT qualifier; HC (HCPCS) and others are still a procedure code.
        if (!composite[1]) throw new Era835Error(`${where()}: no procedure code in SVC01 "${s[1] ?? ""}"`);
        service = {
          procedure_code: composite[1],
          billed_cents: amount(s[2], `SVC02 of ${composite[1]} in claim ${claim.claim_number}`),
          paid_cents: amount(s[3], `SVC03 of ${composite[1]} in claim ${claim.claim_number}`),
          line_control: null,
          tooth_number: null,
          date_service: null,
          allowed_cents: null,
          adjustments: [],
          remark_codes: [],
        };
        claim.services.push(service);
        loop = "service";
        break;
      }
      case "AMT":
        if (loop === "service" && service && s[1] === "B6") service.allowed_cents = amount(s[2], where());
        break;
      case "LQ":
        if (loop === "service" && service && s[1] === "HE" && s[2]) service.remark_codes.push(s[2]);
        break;
      case "PLB":
        loop = "summary";
        claim = null;
        service = null;
        providerAdjustments.push(...plb(s, subSep));
        break;
    }
  }

  if (!bpr) throw new Era835Error("No BPR segment (financial information)");
  if (!trn) throw new Era835Error("No TRN segment (reassociation trace number)");
  if (!trn[2]) throw new Era835Error("TRN02 (the check or EFT trace number) is empty");
  if (!payer) throw new Era835Error("No N1*PR segment (the payer)");
  if (!payee) throw new Era835Error("No N1*PE segment (the payee)");

  for (const c of claims) {
    if (subscriberIds[c.index]) c.patient.member_id = subscriberIds[c.index];
    c.date_service = claimDates[c.index] ?? earliest(c.services.map((sv) => sv.date_service));
    c.problems = claimProblems(c);
  }
  const era: Era835 = {
    payer,
    payee,
    trace_number: trn[2],
    payment_type: paymentType(bpr[4]),
    payment_date: date(bpr[16], "BPR16 (payment date)"),
    total_paid_cents: amount(bpr[2], "BPR02 (total paid)"),
    claims,
    provider_adjustments: providerAdjustments,
    problems: [],
  };
  era.problems = fileProblems(era);
  return era;
}

function paymentType(bpr04: string | undefined): Era835["payment_type"] {
  switch (bpr04) {
    case "CHK":
      return "check";
    case "ACH":
      return "eft";
    // Not a 5010 code (a card payment has none): the one we take to mean a virtual card.
    case "VCD":
      return "virtual_card";
    default:
      return "other";
  }
}

/** CAS01 group, then up to six reason/amount/quantity triplets (CAS02-CAS19). */
function adjustments(s: Seg, where: string): Adjustment835[] {
  const group = s[1] ?? "";
  if (!CAS_GROUPS.includes(group)) throw new Era835Error(`${where}: "${group}" is not a claim adjustment group (${CAS_GROUPS.join(", ")})`);
  const out: Adjustment835[] = [];
  for (let i = 2; i < s.length && i <= 17; i += 3) {
    if (!s[i]) continue;
    out.push({ group: group as CasGroup, reason: s[i], amount_cents: amount(s[i + 1], `${where}, reason ${s[i]}`) });
  }
  if (out.length === 0) throw new Era835Error(`${where}: no adjustment reason in CAS*${group}`);
  return out;
}

/** PLB01 provider, PLB02 fiscal period, then up to six pairs: composite reason:reference and amount. */
function plb(s: Seg, subSep: string): Era835["provider_adjustments"] {
  const out: Era835["provider_adjustments"] = [];
  for (let i = 3; i < s.length && i <= 13; i += 2) {
    if (!s[i]) continue;
    const [reason, reference] = s[i].split(subSep);
    out.push({ reason, reference: reference || null, amount_cents: amount(s[i + 1], `PLB adjustment ${reason}`) });
  }
  return out;
}

// ---------------------------------------------------------------- values

/** X12 "R" dollars to integer cents from the text: "-12.5" is -1250; fractions of a cent are refused, not rounded. */
function amount(value: string | undefined, where: string): number {
  const m = /^(-?)(\d*)(?:\.(\d*))?$/.exec(value ?? "");
  if (!m || (m[2] === "" && !m[3])) throw new Era835Error(`${where}: "${value ?? ""}" is not an amount`);
  const fraction = m[3] ?? "";
  if (/[1-9]/.test(fraction.slice(2))) throw new Era835Error(`${where}: "${value}" has a fraction of a cent`);
  const cents = Number(m[2] || "0") * 100 + Number(fraction.slice(0, 2).padEnd(2, "0"));
  if (!Number.isSafeInteger(cents)) throw new Era835Error(`${where}: "${value}" is too large`);
  return m[1] && cents !== 0 ? -cents : cents;
}

/** CCYYMMDD to YYYY-MM-DD, checked against the calendar. */
function date(value: string | undefined, where: string): string {
  const m = /^(\d{4})(\d{2})(\d{2})$/.exec(value ?? "");
  const iso = m ? `${m[1]}-${m[2]}-${m[3]}` : "";
  const d = m ? new Date(`${iso}T00:00:00Z`) : null;
  if (!d || Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== iso) throw new Era835Error(`${where}: "${value ?? ""}" is not a date (CCYYMMDD)`);
  return iso;
}

function earliest(dates: (string | null)[]): string | null {
  let min: string | null = null;
  for (const d of dates) if (d && (min === null || d < min)) min = d;
  return min;
}

/** Cents as dollars with two decimals: -1250 is "-12.50". */
function dollars(cents: number): string {
  const abs = Math.abs(cents);
  return `${cents < 0 ? "-" : ""}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

// ---------------------------------------------------------------- problems

function claimProblems(c: EraClaim835): string[] {
  const problems: string[] = [];
  if (c.services.length > 0) {
    const paid = sum(c.services.map((s) => s.paid_cents));
    if (paid !== c.paid_cents) problems.push(`Service lines paid ${dollars(paid)}, the claim says ${dollars(c.paid_cents)}`);
    const billed = sum(c.services.map((s) => s.billed_cents));
    if (billed !== c.billed_cents) problems.push(`Service lines billed ${dollars(billed)}, the claim says ${dollars(c.billed_cents)}`);
  }
  c.services.forEach((s, i) => {
    const adjusted = sum(s.adjustments.map((a) => a.amount_cents));
    if (s.billed_cents - adjusted !== s.paid_cents) {
      problems.push(
        `Service line ${i + 1} (${s.procedure_code}): billed ${dollars(s.billed_cents)} less adjustments ${dollars(adjusted)} is ${dollars(s.billed_cents - adjusted)}, the line says paid ${dollars(s.paid_cents)}`,
      );
    }
  });
  return problems;
}

function fileProblems(era: Era835): string[] {
  const claimsPaid = sum(era.claims.map((c) => c.paid_cents));
  // A positive PLB amount is taken back from the payment (e.g. WO recovery); a negative one adds to it (L6 interest).
  const plbTotal = sum(era.provider_adjustments.map((p) => p.amount_cents));
  const expected = claimsPaid - plbTotal;
  if (expected === era.total_paid_cents) return [];
  return [
    `Claims paid ${dollars(claimsPaid)} less provider adjustments ${dollars(plbTotal)} is ${dollars(expected)}, the payment (BPR02) says ${dollars(era.total_paid_cents)}`,
  ];
}
