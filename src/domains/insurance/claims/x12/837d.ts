import { type X12Interchange, X12Parser, type X12Segment } from "node-x12";
import type { Batch837, Built837, Claim837, ClaimProblem837, Line837, X12Address, X12Envelope } from "./types";
import { isaSegment, X12, x12Stamp } from "./envelope";

// The 837D writer (ASC X12 005010X224A2, dental claims and predeterminations)
// and its reader-back. Pure: the claims domain hands in a Batch837 and gets
// the file's text; nothing here reads a database or the clock. A claim that
// cannot be sent is left out with its problems and the others are written;
// check837D parses a written file with node-x12 so the service (and the
// tests) can see that what went out is what was meant.

export const X12_837D_VERSION = "005010X224A2";

/** What check837D reads back from a file. */
export type Checked837D = {
  /** ISA13. */
  control_number: number;
  transaction_count: number;
  /** Every SE01 equals the number of segments from its ST to its SE. */
  segment_count_ok: boolean;
  claims: CheckedClaim837D[];
};

export type CheckedClaim837D = {
  claim_number: string;
  /** CLM02. */
  total_cents: number;
  line_count: number;
  lines: CheckedLine837D[];
  /** CLM02 equals the sum of the lines' SV302. */
  line_total_ok: boolean;
  /** 2010BA NM109. */
  member_id: string | null;
  /** 2010BB NM109. */
  payer_id: string | null;
  /** 2010AA NM109. */
  billing_npi: string | null;
  attachments: { report_type: string; control_number: string }[];
};

export type CheckedLine837D = { procedure_code: string; fee_cents: number; tooth_number: string | null; surfaces: string | null };

// Separators: ISA16 ":" and ISA11 "^" are written in the ISA itself.
const SEG = X12.segment;
const EL = X12.element;
const SUB = X12.component;
const SEPARATORS = /[*~:^]/;

/** 837D allows at most 50 service lines (2400 repeat). */
const MAX_LINES = 50;

// ADA universal: permanent 1-32, primary A-T, supernumerary 51-82.
const TOOTH = /^([1-9]|[12][0-9]|3[0-2]|[A-T]|5[1-9]|[67][0-9]|8[0-2])$/;
// TOO03 surface codes; at most 5 components in the composite.
const SURFACES = /^[MODBFIL]{1,5}$/;
// SV304 oral cavity designation (code source 135).
const AREA: Record<string, string> = { UR: "10", UL: "20", LL: "30", LR: "40", U: "01", L: "02" };
const CDT = /^D[0-9]{4}$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

// ---------------------------------------------------------------- validation

/**
 * Why a claim cannot be sent, as short sentences; empty when it can. The
 * builder runs this on every claim; the service can run it before batching.
 */
export function claimProblems837D(claim: Claim837): string[] {
  const p: string[] = [];
  const cn = claim.claim_number;
  if (!cn) p.push("The claim has no claim number");
  else if (cn.length > 20) p.push("The claim number is longer than 20 characters");
  else if (SEPARATORS.test(cn) || !printable(cn)) p.push("The claim number has a character X12 cannot carry (* ~ : ^ or non-ASCII)");

  if (!/^\d{2}$/.test(claim.place_of_service)) p.push("The place of service is not a 2-digit code");
  npiProblem(p, "billing provider", claim.billing_provider.npi);
  if (claim.treating_provider) npiProblem(p, "treating provider", claim.treating_provider.npi);
  if (!claim.payer.id?.trim()) p.push("The payer has no electronic payer id");
  if (!claim.subscriber.member_id?.trim()) p.push("The subscriber has no member id");
  if (claim.subscriber.birthdate && !d8(claim.subscriber.birthdate)) p.push("The subscriber birthdate is not a date (YYYY-MM-DD)");
  if (claim.patient?.birthdate && !d8(claim.patient.birthdate)) p.push("The patient birthdate is not a date (YYYY-MM-DD)");

  if (claim.claim_type === "secondary" && !claim.other_payer) p.push("The secondary claim has no other payer");
  if (claim.other_payer) {
    // 2330A NM109 and 2330B NM109 are required whenever the other payer is written
    if (!claim.other_payer.id?.trim()) p.push("The other payer has no electronic payer id");
    if (!claim.other_payer.member_id?.trim()) p.push("The other payer has no member id");
    if (!cents(claim.other_payer.paid_cents)) p.push("The other payer's paid amount is not a whole, non-negative number of cents");
  }

  for (const a of claim.attachments) {
    if (!/^[A-Z0-9]{2}$/.test(a.report_type)) p.push(`Attachment report type "${a.report_type}" is not a 2-character code`);
    if (!a.control_number || a.control_number.length > 50 || SEPARATORS.test(a.control_number) || !printable(a.control_number))
      p.push(`Attachment control number "${a.control_number}" is empty, longer than 50 characters or has * ~ : ^`);
  }

  if (claim.lines.length === 0) p.push("The claim has no lines");
  if (claim.lines.length > MAX_LINES) p.push(`The claim has ${claim.lines.length} lines (837D allows ${MAX_LINES})`);
  claim.lines.forEach((line, i) => lineProblems(p, claim, line, i + 1));
  return p;
}

function lineProblems(p: string[], claim: Claim837, line: Line837, n: number): void {
  const name = `Line ${n} (${line.procedure_code})`;
  if (!CDT.test(line.procedure_code)) p.push(`Line ${n} procedure code "${line.procedure_code}" is not a CDT code (Dnnnn)`);
  if (!cents(line.fee_cents)) p.push(`${name} fee is not a whole, non-negative number of cents`);
  if (line.tooth_number === null || line.tooth_number === "") {
    if (line.requires_tooth) p.push(`${name} has no tooth number`);
    // surfaces travel in TOO03, which needs a tooth
    else if (line.surfaces) p.push(`${name} has surfaces but no tooth number`);
  } else if (!TOOTH.test(line.tooth_number)) {
    p.push(`${name} tooth "${line.tooth_number}" is not a tooth (1-32, A-T, 51-82)`);
  }
  const surfaces = line.surfaces?.toUpperCase() ?? "";
  if (surfaces && (!SURFACES.test(surfaces) || new Set(surfaces).size !== surfaces.length))
    p.push(`${name} surfaces "${line.surfaces}" are not up to 5 of M, O, D, B, F, I, L`);
  if (line.area && !AREA[line.area.toUpperCase()]) p.push(`${name} area "${line.area}" is not UR, UL, LR, LL, U or L`);
  // the 835 sends REF*6R back as is: it is never cleaned, so it must fit as given
  if (!line.line_control || line.line_control.length > 50 || SEPARATORS.test(line.line_control) || !printable(line.line_control))
    p.push(`${name} line control is empty, longer than 50 characters or has * ~ : ^`);
  // a predetermination has no service dates yet
  if (claim.claim_type !== "preauth" && !d8(line.date_service)) p.push(`${name} service date is not a date (YYYY-MM-DD)`);
  if (line.other_payer_paid_cents !== null && !cents(line.other_payer_paid_cents))
    p.push(`${name} other payer paid amount is not a whole, non-negative number of cents`);
}

function npiProblem(p: string[], who: string, npi: string | null): void {
  if (!npi?.trim()) p.push(`The ${who} has no NPI`);
  else if (!/^\d{10}$/.test(npi)) p.push(`The ${who} NPI is not 10 digits`);
}

/** Envelope mistakes are configuration errors, not claim problems: thrown. */
function checkEnvelope(env: X12Envelope): void {
  for (const [field, value] of [
    ["sender_id", env.sender_id],
    ["receiver_id", env.receiver_id],
  ] as const) {
    // GS02/GS03 are 2-15 characters; ISA06/ISA08 are the same padded to 15
    if (typeof value !== "string" || value.trim().length < 2 || value.length > 15)
      throw new Error(`X12 envelope ${field} must be 2 to 15 characters, got "${value}"`);
    if (SEPARATORS.test(value) || !printable(value)) throw new Error(`X12 envelope ${field} "${value}" has a separator (* ~ : ^) or a non-ASCII character`);
  }
  if (!Number.isInteger(env.control_number) || env.control_number < 1 || env.control_number > 999_999_999)
    throw new Error(`X12 envelope control_number must be an integer from 1 to 999999999, got ${env.control_number}`);
  if (!(env.created_at instanceof Date) || Number.isNaN(env.created_at.getTime())) throw new Error("X12 envelope created_at is not a valid Date");
  if (env.usage !== "P" && env.usage !== "T") throw new Error(`X12 envelope usage must be P or T, got "${env.usage}"`);
}

// ---------------------------------------------------------------- building

/**
 * Writes every claim that can be sent into one interchange (one ISA/GS/ST),
 * billing providers grouped under one HL each, one subscriber HL per claim.
 * `written` is in file order (grouped by billing provider, otherwise input
 * order); `text` is null when no claim could be written. Throws on a bad
 * envelope (sender/receiver id, control number, date, usage).
 */
export function build837D(batch: Batch837): Built837 {
  checkEnvelope(batch.envelope);
  const problems: ClaimProblem837[] = [];
  const seen = new Set<string>();
  const good: Claim837[] = [];
  for (const claim of batch.claims) {
    const p = claimProblems837D(claim);
    // the 835 is matched back by CLM01, so a number twice in one file is ambiguous
    if (p.length === 0 && seen.has(claim.claim_number)) p.push("The claim number is already in this batch");
    if (p.length > 0) problems.push({ claim_number: claim.claim_number, problems: p });
    else {
      seen.add(claim.claim_number);
      good.push(claim);
    }
  }
  if (good.length === 0) return { text: null, written: [], problems };

  // one 2000A per distinct billing provider as written (NPI, name, address, tax id, taxonomy):
  // one NPI at two offices is two billing providers on paper
  const groups = new Map<string, { billing: string[]; claims: Claim837[] }>();
  for (const claim of good) {
    const billing = billingSegments(claim.billing_provider);
    const key = billing.join(SEG);
    const group = groups.get(key);
    if (group) group.claims.push(claim);
    else groups.set(key, { billing, claims: [claim] });
  }

  const env = batch.envelope;
  const ctrl = String(env.control_number);
  const sender = env.sender_id.trim();
  const receiver = env.receiver_id.trim();
  const stCtrl = ctrl.padStart(4, "0");
  const { ccyymmdd, hhmm } = x12Stamp(env.created_at);

  const body: string[] = [];
  body.push(seg("ST", "837", stCtrl, X12_837D_VERSION));
  body.push(seg("BHT", "0019", "00", ctrl, ccyymmdd, hhmm, "CH"));
  // 1000A submitter, 1000B receiver
  const sub = batch.submitter;
  body.push(seg("NM1", "41", "2", text(sub.name, 60), "", "", "", "", "46", id(sub.id, 80)));
  const phone = sub.contact_phone ? sub.contact_phone.replace(/\D/g, "").slice(0, 256) : "";
  const email = sub.contact_email ? clean(sub.contact_email).slice(0, 256) : "";
  const contacts = [...(phone ? ["TE", phone] : []), ...(email ? ["EM", email] : [])];
  body.push(seg("PER", "IC", text(sub.contact_name, 60), ...contacts));
  body.push(seg("NM1", "40", "2", text(batch.receiver.name, 60), "", "", "", "", "46", id(batch.receiver.id, 80)));

  const written: string[] = [];
  let hl = 0;
  for (const group of groups.values()) {
    const billingHl = ++hl;
    body.push(seg("HL", String(billingHl), "", "20", "1"));
    body.push(...group.billing);
    for (const claim of group.claims) {
      hl = claimSegments(body, claim, billingHl, hl);
      written.push(claim.claim_number);
    }
  }
  // SE01 counts ST through SE
  body.push(seg("SE", String(body.length + 1), stCtrl));

  // the ISA is written with the trimmed ids the GS carries too
  const isa = isaSegment({ ...env, sender_id: sender, receiver_id: receiver });
  const segments = [
    isa,
    seg("GS", "HC", sender, receiver, ccyymmdd, hhmm, ctrl, "X", X12_837D_VERSION),
    ...body,
    seg("GE", "1", ctrl),
    seg("IEA", "1", ctrl.padStart(9, "0")),
  ];
  return { text: segments.join(SEG) + SEG, written, problems };
}

/** 2000A PRV and 2010AA: the billing provider (after its HL). */
function billingSegments(bp: Claim837["billing_provider"]): string[] {
  const out: string[] = [];
  if (bp.taxonomy?.trim()) out.push(seg("PRV", "BI", "PXC", text(bp.taxonomy, 50)));
  out.push(seg("NM1", "85", "2", text(bp.name, 60), "", "", "", "", "XX", bp.npi ?? ""));
  out.push(...address(bp.address));
  const tin = bp.tax_id?.replace(/\D/g, "") ?? "";
  if (tin) out.push(seg("REF", "EI", tin));
  return out;
}

/** 2000B..2430 for one claim; returns the last HL number used. */
function claimSegments(out: string[], claim: Claim837, billingHl: number, hl: number): number {
  const s = claim.subscriber;
  const patient = claim.patient;
  const preauth = claim.claim_type === "preauth";

  // 2000B subscriber: child code 1 when a 2000C patient follows
  const subscriberHl = ++hl;
  out.push(seg("HL", String(subscriberHl), String(billingHl), "22", patient ? "1" : "0"));
  out.push(seg("SBR", s.payer_responsibility, patient ? "" : "18", id(s.group_number, 50), text(s.group_name, 60), "", "", "", "", "CI"));
  // 2010BA
  out.push(seg("NM1", "IL", "1", text(s.last_name, 60), text(s.first_name, 35), "", "", "", "MI", id(s.member_id, 80)));
  out.push(...address(s.address));
  if (s.birthdate) out.push(seg("DMG", "D8", d8(s.birthdate), s.gender));
  // 2010BB
  out.push(seg("NM1", "PR", "2", text(claim.payer.name, 60), "", "", "", "", "PI", id(claim.payer.id, 80)));
  out.push(...address(claim.payer.address));

  if (patient) {
    // 2000C / 2010CA (NM1*QC carries no id in 5010)
    out.push(seg("HL", String(++hl), String(subscriberHl), "23", "0"));
    out.push(seg("PAT", patient.relationship));
    out.push(seg("NM1", "QC", "1", text(patient.last_name, 60), text(patient.first_name, 35)));
    out.push(...address(patient.address));
    if (patient.birthdate) out.push(seg("DMG", "D8", d8(patient.birthdate), patient.gender));
  }

  // 2300: CLM05 place of service : B (dental) : 1 original; CLM19 PB marks a predetermination
  const total = claim.lines.reduce((sum, l) => sum + l.fee_cents, 0);
  const clm = [claim.claim_number, dollars(total), "", "", [claim.place_of_service, "B", "1"].join(SUB), "Y", "A", "Y", "Y"];
  if (preauth) clm.push(...Array<string>(9).fill(""), "PB");
  out.push(seg("CLM", ...clm));
  if (!preauth) {
    const first = claim.lines.map((l) => l.date_service).sort()[0];
    out.push(seg("DTP", "472", "D8", d8(first)));
  }
  for (const a of claim.attachments) out.push(seg("PWK", a.report_type, "BM", "", "", "AC", a.control_number));
  if (claim.prior_authorization_number?.trim()) out.push(seg("REF", "G1", id(claim.prior_authorization_number, 50)));

  // 2310B rendering provider
  const tp = claim.treating_provider;
  if (tp) {
    out.push(seg("NM1", "82", "1", text(tp.last_name, 60), text(tp.first_name, 35), "", "", "", "XX", tp.npi ?? ""));
    if (tp.taxonomy?.trim()) out.push(seg("PRV", "PE", "PXC", text(tp.taxonomy, 50)));
  }

  // 2320/2330A/2330B: the other payer. Its subscriber is taken to be ours (the
  // types carry no other subscriber), so SBR02 is the patient's relationship to ours.
  const op = claim.other_payer;
  // what the other payer paid (AMT*D, SVD) only once it has adjudicated, i.e. on a secondary claim
  const adjudicated = op !== null && claim.claim_type === "secondary";
  if (op) {
    out.push(seg("SBR", op.payer_responsibility, op.subscriber?.relationship ?? (patient ? patient.relationship : "18"), "", "", "", "", "", "", "CI"));
    if (adjudicated) out.push(seg("AMT", "D", dollars(op.paid_cents)));
    out.push(seg("OI", "", "", "Y", "", "", "Y"));
    const other = op.subscriber ?? s;
    out.push(seg("NM1", "IL", "1", text(other.last_name, 60), text(other.first_name, 35), "", "", "", "MI", id(op.member_id, 80)));
    out.push(seg("NM1", "PR", "2", text(op.name, 60), "", "", "", "", "PI", id(op.id, 80)));
  }

  claim.lines.forEach((line, i) => {
    out.push(seg("LX", String(i + 1)));
    const area = line.area ? AREA[line.area.toUpperCase()] : "";
    out.push(seg("SV3", `AD${SUB}${line.procedure_code}`, dollars(line.fee_cents), "", area, "", "1"));
    if (line.tooth_number) {
      const surfaces = line.surfaces ? [...line.surfaces.toUpperCase()].join(SUB) : "";
      out.push(seg("TOO", "JP", line.tooth_number, surfaces));
    }
    if (!preauth) out.push(seg("DTP", "472", "D8", d8(line.date_service)));
    out.push(seg("REF", "6R", line.line_control));
    // 2430: the other payer's line adjudication (SVD01 names the 2330B payer)
    if (op && adjudicated && line.other_payer_paid_cents !== null) {
      out.push(seg("SVD", id(op.id, 80), dollars(line.other_payer_paid_cents), `AD${SUB}${line.procedure_code}`, "", "1"));
      // CAS: one per group, up to six reason/amount/quantity triplets each; then when the payer adjudicated it
      const groups = new Map<string, { reason: string; amount_cents: number }[]>();
      for (const a of line.other_payer_adjustments ?? []) if (a.amount_cents) groups.set(a.group, [...(groups.get(a.group) ?? []), a]);
      for (const [group, list] of groups)
        for (let k = 0; k < list.length; k += 6)
          out.push(seg("CAS", group, ...list.slice(k, k + 6).flatMap((a) => [id(a.reason, 5), dollars(a.amount_cents), ""])));
      if (op.paid_date) out.push(seg("DTP", "573", "D8", d8(op.paid_date)));
    }
  });
  return hl;
}

/** N3/N4 when there is a street / a city: an element-less N3 or N4 is worse than none. */
function address(a: X12Address): string[] {
  const out: string[] = [];
  const line1 = text(a.line1, 55);
  if (line1) out.push(seg("N3", line1, text(a.line2, 55)));
  const city = text(a.city, 30);
  // "62701-1234" is written 627011234
  const zip = (a.zip ?? "")
    .replace(/[^0-9A-Za-z]/g, "")
    .toUpperCase()
    .slice(0, 15);
  if (city) out.push(seg("N4", city, text(a.state, 2), zip));
  return out;
}

// ---------------------------------------------------------------- values

/** A segment: trailing empty elements are dropped, as X12 requires. */
function seg(tag: string, ...elements: string[]): string {
  let end = elements.length;
  while (end > 0 && elements[end - 1] === "") end--;
  return [tag, ...elements.slice(0, end)].join(EL);
}

/** Free text made safe: ASCII only (accents dropped), no separators, one space, cut to `max`. */
function clean(v: string): string {
  return v
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[*~:^]/g, "")
    .replace(/[^\x20-\x7E]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** Names and addresses: cleaned and uppercased. */
function text(v: string | null | undefined, max: number): string {
  return v ? clean(v).toUpperCase().slice(0, max).trim() : "";
}

/** Identifiers (member, payer, group, submitter ids, authorization numbers): cleaned, case kept. */
function id(v: string | null | undefined, max: number): string {
  return v ? clean(v).slice(0, max).trim() : "";
}

function printable(v: string): boolean {
  return /^[\x20-\x7E]*$/.test(v);
}

function cents(v: number): boolean {
  return Number.isSafeInteger(v) && v >= 0;
}

/** X12 decimal dollars without trailing zeros: 130000 -> "1300", 130050 -> "1300.5", 130055 -> "1300.55". */
function dollars(c: number): string {
  const whole = Math.floor(c / 100);
  const frac = c % 100;
  if (frac === 0) return String(whole);
  return `${whole}.${String(frac).padStart(2, "0").replace(/0$/, "")}`;
}

/** YYYY-MM-DD to CCYYMMDD, "" when not a calendar date. */
function d8(v: string): string {
  const m = DATE.exec(v);
  if (!m) return "";
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = new Date(Date.UTC(y, mo - 1, d));
  if (t.getUTCFullYear() !== y || t.getUTCMonth() !== mo - 1 || t.getUTCDate() !== d) return "";
  return `${m[1]}${m[2]}${m[3]}`;
}

// ---------------------------------------------------------------- reading back

/**
 * Parses a written 837D with node-x12 and sums up what it says, for the
 * service to check its own output. Throws when the text is not one parseable
 * X12 interchange holding 837 005010X224 transactions. A wrong SE01 is
 * reported (segment_count_ok), not thrown.
 */
export function check837D(text: string): Checked837D {
  if (typeof text !== "string" || !text.startsWith("ISA")) throw new Error("Not an X12 file: it does not start with ISA");
  const parser = new X12Parser(false);
  let parsed: ReturnType<X12Parser["parse"]>;
  try {
    parsed = parser.parse(text);
  } catch (e) {
    throw new Error(`Not a parseable X12 file: ${(e as Error).message}`);
  }
  // node-x12 is run loose so a wrong SE01 can be reported; anything else it noticed is fatal
  const fatal = parser.diagnostics.filter((d) => d.level === 2 && !/SE01/.test(d.message));
  if (fatal.length > 0) throw new Error(`Not a parseable X12 file: ${fatal[0].message}`);
  if (!parsed || !("functionalGroups" in parsed)) throw new Error("Not a parseable X12 file: expected one interchange");
  const ic = parsed as X12Interchange;
  if (!ic.header || !ic.trailer) throw new Error("Not a parseable X12 file: missing ISA or IEA");
  if (ic.functionalGroups.length === 0) throw new Error("Not a parseable X12 file: no functional group");

  const sub = ic.header.valueOf(16) || SUB;
  const claims: CheckedClaim837D[] = [];
  let transactions = 0;
  let countOk = true;
  for (const group of ic.functionalGroups) {
    if (!group.trailer) throw new Error("Not a parseable X12 file: a GS has no GE");
    if (group.header.valueOf(1) !== "HC" || !group.header.valueOf(8)?.startsWith("005010X224"))
      throw new Error(`Not an 837D 5010 file: GS01 ${group.header.valueOf(1)}, GS08 ${group.header.valueOf(8)}`);
    for (const tx of group.transactions) {
      if (!tx.trailer) throw new Error("Not a parseable X12 file: an ST has no SE");
      if (tx.header.valueOf(1) !== "837") throw new Error(`Not an 837 file: ST01 ${tx.header.valueOf(1)}`);
      transactions++;
      if (Number(tx.trailer.valueOf(1)) !== tx.segments.length + 2) countOk = false;
      claims.push(...readClaims(tx.segments, sub));
    }
  }
  return { control_number: Number.parseInt(ic.header.valueOf(13), 10), transaction_count: transactions, segment_count_ok: countOk, claims };
}

/** Walks one transaction's segments (between ST and SE), keeping the HL context of each CLM. */
function readClaims(segments: X12Segment[], sub: string): CheckedClaim837D[] {
  const claims: CheckedClaim837D[] = [];
  let billingNpi: string | null = null;
  let memberId: string | null = null;
  let payerId: string | null = null;
  let claim: CheckedClaim837D | null = null;
  let line: CheckedLine837D | null = null;
  const v = (s: X12Segment, i: number) => s.valueOf(i) || null;

  for (const s of segments) {
    switch (s.tag) {
      case "HL": {
        claim = null;
        line = null;
        const level = s.valueOf(3);
        if (level === "20") billingNpi = null;
        if (level === "20" || level === "22") {
          memberId = null;
          payerId = null;
        }
        break;
      }
      case "NM1": {
        // NM1*IL / NM1*PR after the CLM are the other payer's (2330A/B)
        if (claim) break;
        const entity = s.valueOf(1);
        if (entity === "85") billingNpi = v(s, 9);
        else if (entity === "IL") memberId = v(s, 9);
        else if (entity === "PR") payerId = v(s, 9);
        break;
      }
      case "CLM": {
        claim = {
          claim_number: s.valueOf(1) ?? "",
          total_cents: amount(s.valueOf(2), "CLM02"),
          line_count: 0,
          lines: [],
          line_total_ok: false,
          member_id: memberId,
          payer_id: payerId,
          billing_npi: billingNpi,
          attachments: [],
        };
        line = null;
        claims.push(claim);
        break;
      }
      case "PWK":
        if (claim && !line) claim.attachments.push({ report_type: s.valueOf(1) ?? "", control_number: s.valueOf(6) ?? "" });
        break;
      case "LX":
        line = null;
        break;
      case "SV3": {
        if (!claim) throw new Error("Not a valid 837D: SV3 before any CLM");
        const [, code] = (s.valueOf(1) ?? "").split(sub);
        line = { procedure_code: code ?? "", fee_cents: amount(s.valueOf(2), "SV302"), tooth_number: null, surfaces: null };
        claim.lines.push(line);
        break;
      }
      case "TOO":
        // the first TOO of a line is its tooth (we write one per line)
        if (line && line.tooth_number === null) {
          line.tooth_number = v(s, 2);
          line.surfaces = (s.valueOf(3) ?? "").split(sub).join("") || null;
        }
        break;
    }
  }
  for (const c of claims) {
    c.line_count = c.lines.length;
    c.line_total_ok = c.total_cents === c.lines.reduce((sum, l) => sum + l.fee_cents, 0);
  }
  return claims;
}

/** An X12 decimal amount in cents; throws when it is not one (at most 2 decimals). */
function amount(v: string | null | undefined, where: string): number {
  const m = /^(-?)(\d*)(?:\.(\d{1,2}))?$/.exec(v ?? "");
  if (!m || (m[2] === "" && m[3] === undefined)) throw new Error(`Not a valid 837D: ${where} "${v}" is not an amount`);
  const c = Number(m[2] || "0") * 100 + Number((m[3] ?? "").padEnd(2, "0"));
  return m[1] ? -c : c;
}
