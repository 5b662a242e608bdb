// The claim cycle's X12 files as plain data (docs/insurance/claims.md, "X12"):
// what the 837D builder takes and what the 835 parser gives back. Pure data,
// integer cents, dates as YYYY-MM-DD: the claims domain maps its records to
// these, and nothing here reads a database.

export type X12Address = { line1: string | null; line2: string | null; city: string | null; state: string | null; zip: string | null };

/** The envelope of one file: who sends it to whom, and its control number. */
export type X12Envelope = {
  /** ISA06 / GS02: the submitter's id at the clearinghouse (up to 15 characters). */
  sender_id: string;
  /** ISA08 / GS03: the clearinghouse's (receiver's) id. */
  receiver_id: string;
  /** ISA13 / GS06 / ST02: 1 to 999,999,999, unique per submitter. */
  control_number: number;
  /** ISA09/ISA10 and GS04/GS05, BHT04/BHT05. */
  created_at: Date;
  /** ISA15: P production, T test. */
  usage: "P" | "T";
};

/** 837D (005010X224A2): one batch of claims. */
export type Batch837 = {
  envelope: X12Envelope;
  /** 1000A: the practice submitting. */
  submitter: { name: string; id: string; contact_name: string; contact_phone: string | null; contact_email: string | null };
  /** 1000B: the clearinghouse. */
  receiver: { name: string; id: string };
  claims: Claim837[];
};

export type ClaimType837 = "primary" | "secondary" | "preauth" | "other";

export type Claim837 = {
  /** CLM01: the claim number (unique per org, at most 20 characters). */
  claim_number: string;
  claim_type: ClaimType837;
  /** CLM05-1: CMS place of service code, e.g. "11" office. */
  place_of_service: string;
  prior_authorization_number: string | null;
  /** 2010AA. NPI is required to send. */
  billing_provider: { name: string; npi: string | null; tax_id: string | null; taxonomy: string | null; address: X12Address };
  /** 2310B rendering provider, when not the billing provider. NPI required when present. */
  treating_provider: { first_name: string; last_name: string; npi: string | null; taxonomy: string | null } | null;
  /** 2010BB: the carrier; `id` is its electronic (payer) id, required to send. */
  payer: { name: string; id: string | null; address: X12Address };
  /** 2000B/2010BA. member_id is required to send. */
  subscriber: {
    member_id: string | null;
    first_name: string;
    last_name: string;
    birthdate: string | null;
    /** F | M | U */
    gender: "F" | "M" | "U";
    address: X12Address;
    group_number: string | null;
    group_name: string | null;
    /** SBR01: P primary, S secondary, T tertiary. */
    payer_responsibility: "P" | "S" | "T";
  };
  /**
   * 2000C/2010CA: the patient when not the subscriber (null when the patient
   * is the subscriber). relationship: PAT01 code, 01 spouse, 19 child, G8 other.
   */
  patient: {
    first_name: string;
    last_name: string;
    birthdate: string | null;
    gender: "F" | "M" | "U";
    address: X12Address;
    relationship: "01" | "19" | "G8";
  } | null;
  /** 2320/2330: the primary payer on a secondary claim (COB), with what it paid. */
  other_payer: {
    name: string;
    id: string | null;
    member_id: string | null;
    paid_cents: number;
    payer_responsibility: "P" | "S" | "T";
    /** 2330A: the other plan's subscriber and the patient's relationship to them (SBR02: 18 self, 01 spouse, 19 child, G8 other); default ours. */
    subscriber?: { first_name: string; last_name: string; relationship: "18" | "01" | "19" | "G8" } | null;
    /** 2430 DTP*573: the day the other payer adjudicated (paid) the claim. */
    paid_date?: string | null;
  } | null;
  lines: Line837[];
  /** PWK: attachments sent separately (report type code e.g. RB radiographs, B4 referral, OZ support data; control number is ours). */
  attachments: { report_type: string; control_number: string }[];
};

export type Line837 = {
  /** REF*6R: our line item control number (the charted procedure's id), which the 835 sends back per SVC. */
  line_control: string;
  /** SV301-2 CDT code, e.g. "D2740" (lines are numbered LX01 from 1 in this order). */
  procedure_code: string;
  fee_cents: number;
  date_service: string;
  /** "1".."32", "A".."T", supernumerary "51".."82"; null for non-tooth procedures. */
  tooth_number: string | null;
  /** e.g. "MOD" (each letter one TOO03 surface). */
  surfaces: string | null;
  /** "UR" | "UL" | "LR" | "LL" or arch "U" / "L" when the procedure is by area (SV304 oral cavity designation). */
  area: string | null;
  /** The procedure code needs a tooth (a tooth-coded procedure): missing tooth is a problem. */
  requires_tooth: boolean;
  /** 2430: what the other payer paid on this line (secondary claims), null when none. */
  other_payer_paid_cents: number | null;
  /** 2430 CAS: how the other payer adjusted this line (write-off CO, the patient's share PR), so its paid + adjustments = the fee. */
  other_payer_adjustments?: { group: "CO" | "PR" | "OI" | "PI" | "CR"; reason: string; amount_cents: number }[];
};

/** What could not be put in the file, per claim (the claim is left out; the others are written). */
export type ClaimProblem837 = { claim_number: string; problems: string[] };

export type Built837 = {
  /** The file, or null when no claim could be written. */
  text: string | null;
  /** The claim numbers written, in order. */
  written: string[];
  problems: ClaimProblem837[];
};

/** 835 (005010X221A1) as read. */
export type Era835 = {
  /** N1*PR: the payer; `id` from N1*PR04 or REF*2U. */
  payer: { name: string; id: string | null };
  /** N1*PE: the payee. */
  payee: { name: string; npi: string | null; tax_id: string | null };
  /** TRN02: check or EFT trace number. */
  trace_number: string;
  /** BPR04: CHK check, ACH eft, NON no payment, BOP, FWT... mapped: check | eft | other. */
  payment_type: "check" | "eft" | "virtual_card" | "other";
  /** BPR16 (YYYY-MM-DD). */
  payment_date: string;
  /** BPR02, cents. */
  total_paid_cents: number;
  claims: EraClaim835[];
  /** PLB: provider-level adjustments (e.g. WO overpayment recovery, L6 interest); positive reduces the payment. */
  provider_adjustments: { reason: string; reference: string | null; amount_cents: number }[];
  /** Numbers that do not add up across the file (BPR02 against the CLPs less PLB). */
  problems: string[];
};

export type CasGroup = "CO" | "PR" | "OI" | "PI" | "CR";
export type Adjustment835 = { group: CasGroup; reason: string; amount_cents: number };

export type EraClaim835 = {
  /** Position in the file, from 0: how a CLP is named in the API. */
  index: number;
  /** CLP01: our claim number as sent. */
  claim_number: string;
  /** CLP02: 1 processed as primary, 2 secondary, 3 tertiary, 4 denied, 22 reversal, ... */
  status_code: string;
  billed_cents: number;
  paid_cents: number;
  /** CLP05. */
  patient_responsibility_cents: number;
  /** CLP07: the payer's claim control number. */
  payer_claim_number: string | null;
  patient: { first_name: string | null; last_name: string | null; member_id: string | null };
  /** DTM*232 (or the earliest SVC DTM*472). */
  date_service: string | null;
  /** Claim-level CAS. */
  adjustments: Adjustment835[];
  services: EraService835[];
  /** SVC lines that do not add up to the CLP, or a line whose billed less adjustments is not its paid. */
  problems: string[];
};

export type EraService835 = {
  /** SVC01-2, e.g. "D2740" (qualifier AD). */
  procedure_code: string;
  billed_cents: number;
  paid_cents: number;
  /** REF*6R: our line item control number when we sent one. */
  line_control: string | null;
  /** TOO or REF*... when given. */
  tooth_number: string | null;
  date_service: string | null;
  /** AMT*B6. */
  allowed_cents: number | null;
  adjustments: Adjustment835[];
  /** LQ*HE remark codes (RARC). */
  remark_codes: string[];
};
