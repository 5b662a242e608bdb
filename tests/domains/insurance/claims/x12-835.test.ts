import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { Era835Error, parse835 } from "@/domains/insurance/claims/x12/835";
import type { Adjustment835, CasGroup, Era835 } from "@/domains/insurance/claims/x12/types";
import { type BalancedLine, balancedClaim, balancedEra, build835, type Era835Input, type Era835InputClaim, reversalOf } from "@tests/support/era835";

// The 835 (ERA) parser: files written by build835 read back field for field,
// one written by hand as a clearinghouse sends it, the numbers that do not add
// up (reported, not thrown), the files refused (not X12, not an 835, another
// version, cut short) and a property over random balanced claims.

/** What parse835 should give for a builder input: the input plus claim indexes, and no problems. */
function expected(input: Era835Input): Era835 {
  return {
    payer: input.payer,
    payee: input.payee,
    trace_number: input.trace_number,
    payment_type: input.payment_type,
    payment_date: input.payment_date,
    total_paid_cents: input.total_paid_cents,
    claims: input.claims.map((c, index) => ({ ...c, index, problems: [] })),
    provider_adjustments: input.provider_adjustments,
    problems: [],
  };
}

/** Drops every segment with this tag and rewrites SE01, so the envelope still checks and only the content is missing. */
function withoutSegment(text: string, tag: string): string {
  const lines = text.split("\n").filter((l) => !l.startsWith(`${tag}*`));
  const st = lines.findIndex((l) => l.startsWith("ST*"));
  const se = lines.findIndex((l) => l.startsWith("SE*"));
  lines[se] = lines[se].replace(/^SE\*\d+/, `SE*${se - st + 1}`);
  return lines.join("\n");
}

const parseError = (text: string): Era835Error => {
  try {
    parse835(text);
  } catch (e) {
    expect(e).toBeInstanceOf(Era835Error);
    return e as Era835Error;
  }
  throw new Error("parse835 did not throw");
};

// ---------------------------------------------------------------- round trip

describe("build835 → parse835", () => {
  // A check-up with a filling under the deductible, then a crown denied as not medically necessary.
  const checkup = balancedClaim(
    "CUSP-000123",
    [
      { code: "D0120", billed: 6500, allowed: 4800, paid: 4800, line_control: "proc_01", date: "2024-02-20" },
      { code: "D1110", billed: 11000, allowed: 8900, paid: 8900, line_control: "proc_02", date: "2024-02-20" },
      { code: "D2392", billed: 24000, allowed: 18000, paid: 10400, deductible: 5000, line_control: "proc_03", date: "2024-02-27", tooth: "30" },
    ],
    { payer_claim_number: "2024056AB0001", patient: { first_name: "MAYA", last_name: "LINDQVIST", member_id: "DDX88231001" } },
  );
  const crown = balancedClaim(
    "CUSP-000124",
    [{ code: "D2740", billed: 135000, allowed: 0, paid: 0, co_reason: "50", remarks: ["N130"], line_control: "proc_04", date: "2024-02-27", tooth: "3" }],
    { payer_claim_number: "2024056AB0002", patient: { first_name: "MAYA", last_name: "LINDQVIST", member_id: "DDX88231001" } },
  );
  const input = balancedEra([checkup, crown], {
    provider_adjustments: [{ reason: "WO", reference: "2023120AB0077", amount_cents: 2500 }],
    envelope: { control_number: 905, receiver_id: "CUSPCLEAR" },
  });

  test("the balanced claims are what a payer would send", () => {
    expect(checkup.status_code).toBe("1");
    expect(checkup.billed_cents).toBe(41500);
    expect(checkup.paid_cents).toBe(24100);
    expect(checkup.patient_responsibility_cents).toBe(7600);
    expect(checkup.date_service).toBe("2024-02-20");
    expect(checkup.services[2].adjustments).toEqual([
      { group: "CO", reason: "45", amount_cents: 6000 },
      { group: "PR", reason: "1", amount_cents: 5000 },
      { group: "PR", reason: "2", amount_cents: 2600 },
    ]);
    expect(crown.status_code).toBe("4");
    expect(crown.services[0].adjustments).toEqual([{ group: "CO", reason: "50", amount_cents: 135000 }]);
    expect(input.total_paid_cents).toBe(24100 - 2500);
  });

  test("the file is well formed: fixed-width ISA, SE count, trailers", () => {
    const text = build835(input);
    const lines = text.trimEnd().split("\n");
    expect(lines[0]).toHaveLength(106);
    expect(lines[0]).toEndWith("*000000905*0*P*:~");
    expect(lines[1]).toBe("GS*HP*77777*CUSPCLEAR*20240315*1200*905*X*005010X221A1~");
    expect(lines[2]).toBe("ST*835*0905*005010X221A1~");
    const se = lines.findIndex((l) => l.startsWith("SE*"));
    expect(lines[se]).toBe(`SE*${se - 1}*0905~`);
    expect(lines.slice(se + 1)).toEqual(["GE*1*905~", "IEA*1*000000905~"]);
    expect(text).toContain("\nCLP*CUSP-000123*1*415*241*76*12*2024056AB0001*11*1~\n");
    expect(text).toContain("\nCAS*CO*45*60~\nCAS*PR*1*50**2*26~\n");
    expect(text).toContain("\nSVC*AD:D2740*1350*0~\nDTM*472*20240227~\nCAS*CO*50*1350~\nREF*6R*proc_04~\nREF*JP*3~\nAMT*B6*0~\nLQ*HE*N130~\n");
    expect(text).toContain("\nPLB*1234567893*20241231*WO:2023120AB0077*25~\n");
  });

  test("every field comes back", () => {
    const era = parse835(build835(input));
    expect(era).toEqual(expected(input));
    // The same spelled out, for the fields a reader checks first.
    expect(era.payer).toEqual({ name: "DELTA DENTAL OF CALIFORNIA", id: "77777" });
    expect(era.payee).toEqual({ name: "BRIGHT SMILE DENTAL", npi: "1234567893", tax_id: "941234567" });
    expect(era.trace_number).toBe("EFT20240315001");
    expect(era.payment_type).toBe("eft");
    expect(era.payment_date).toBe("2024-03-15");
    expect(era.total_paid_cents).toBe(21600);
    expect(era.claims.map((c) => [c.index, c.claim_number, c.status_code, c.billed_cents, c.paid_cents, c.patient_responsibility_cents])).toEqual([
      [0, "CUSP-000123", "1", 41500, 24100, 7600],
      [1, "CUSP-000124", "4", 135000, 0, 0],
    ]);
    expect(era.claims[1].services[0]).toEqual({
      procedure_code: "D2740",
      billed_cents: 135000,
      paid_cents: 0,
      line_control: "proc_04",
      tooth_number: "3",
      date_service: "2024-02-27",
      allowed_cents: 0,
      adjustments: [{ group: "CO", reason: "50", amount_cents: 135000 }],
      remark_codes: ["N130"],
    });
    expect(era.provider_adjustments).toEqual([{ reason: "WO", reference: "2023120AB0077", amount_cents: 2500 }]);
  });

  test("one line or one segment a line reads the same", () => {
    expect(parse835(build835({ ...input, newlines: false }))).toEqual(expected(input));
  });

  test("payment methods, a payee known by tax id only, no payer id", () => {
    const base = balancedEra([checkup]);
    const types = (["check", "eft", "virtual_card", "other"] as const).map((payment_type) => parse835(build835({ ...base, payment_type })).payment_type);
    expect(types).toEqual(["check", "eft", "virtual_card", "other"]);
    const era = parse835(build835({ ...base, payer: { name: "GUARDIAN", id: null }, payee: { name: "DR ADA OKONJO DDS", npi: null, tax_id: "861234567" } }));
    expect(era.payer).toEqual({ name: "GUARDIAN", id: null });
    expect(era.payee).toEqual({ name: "DR ADA OKONJO DDS", npi: null, tax_id: "861234567" });
  });

  test("a reversal (CLP02 22) keeps its signs", () => {
    const era = parse835(build835(balancedEra([reversalOf(checkup), checkup])));
    expect(era.claims[0].status_code).toBe("22");
    expect(era.claims[0].paid_cents).toBe(-24100);
    expect(era.claims[0].services[2].adjustments.map((a) => a.amount_cents)).toEqual([-6000, -5000, -2600]);
    expect(era.total_paid_cents).toBe(0);
    expect(era.problems).toEqual([]);
    expect(era.claims.flatMap((c) => c.problems)).toEqual([]);
  });
});

// ---------------------------------------------------------------- by hand

// As a clearinghouse sends it: a check; a claim for a child on her father's
// plan (NM1*IL), the reversal of an earlier claim with HC: codes and no claim
// date, a claim denied at claim level without lines, and a PLB taking back
// an overpayment and adding interest.
const HAND_WRITTEN = `ISA*00*          *00*          *ZZ*65978          *ZZ*CUSPDENTAL     *240402*0931*^*00501*000004711*0*P*:~
GS*HP*65978*CUSPDENTAL*20240402*0931*4711*X*005010X221A1~
ST*835*0001*005010X221A1~
BPR*C*111.42*C*CHK************20240405~
TRN*1*0087654321*1135502255~
REF*EV*CUSPDENTAL~
DTM*405*20240402~
N1*PR*METLIFE DENTAL*XV*65978~
N3*PO BOX 981282~
N4*EL PASO*TX*799981282~
REF*2U*MET01~
PER*BL*PROVIDER SERVICES*TE*8006386270*EM*EDI@EXAMPLE.COM~
N1*PE*MAPLE STREET DENTAL GROUP*XX*1497758544~
N3*120 MAPLE ST~
N4*SPRINGFIELD*IL*627010001~
REF*TJ*371234567~
LX*1~
CLP*2024-000187*1*385*239.4*76.1*12*E24092000123*11*1~
NM1*QC*1*HARTLEY*OLIVIA*A***MI*XKD449120201~
NM1*IL*1*HARTLEY*JAMES****MI*XKD449120200~
NM1*82*1*CHEN*WEI****XX*1588667788~
REF*1L*0912345~
DTM*232*20240318~
DTM*050*20240320~
SVC*AD:D0150*95*80**1~
DTM*472*20240318~
CAS*CO*45*15~
REF*6R*PRC-7781~
AMT*B6*80~
SVC*AD:D0274*70*55**1~
DTM*472*20240318~
CAS*CO*45*15~
REF*6R*PRC-7782~
AMT*B6*55~
SVC*AD:D2392*220*104.4**1~
DTM*472*20240318~
CAS*CO*45*39.5~
CAS*PR*1*50**2*26.1~
REF*6R*PRC-7783~
AMT*B6*180.5~
LQ*HE*N381~
LQ*HE*M2~
CLP*2024-000102*22*-150*-104*-18*12*E24070000456*11*1~
NM1*QC*1*OKAFOR*DANIEL****MI*XKD552310900~
SVC*HC:D1110*-110*-72**1~
DTM*472*20240212~
CAS*CO*45*-20~
CAS*PR*2*-18~
REF*6R*PRC-6601~
AMT*B6*-90~
SVC*AD:D1208*-40*-32**1~
DTM*472*20240205~
CAS*CO*45*-8~
REF*6R*PRC-6602~
CLP*2024-000190*4*260*0**12*E24092000777*11*1~
CAS*CO*29*260~
NM1*QC*1*PRICE*ELLA****MI*XKD600011122~
DTM*232*20230815~
PLB*1497758544*20241231*WO:E23110000999*25*L6*-1.02~
SE*58*0001~
GE*1*4711~
IEA*1*000004711~
`;

describe("a hand-written 835", () => {
  test("reads to exactly these values", () => {
    expect(parse835(HAND_WRITTEN)).toEqual({
      payer: { name: "METLIFE DENTAL", id: "65978" },
      payee: { name: "MAPLE STREET DENTAL GROUP", npi: "1497758544", tax_id: "371234567" },
      trace_number: "0087654321",
      payment_type: "check",
      payment_date: "2024-04-05",
      total_paid_cents: 11142,
      claims: [
        {
          index: 0,
          claim_number: "2024-000187",
          status_code: "1",
          billed_cents: 38500,
          paid_cents: 23940,
          patient_responsibility_cents: 7610,
          payer_claim_number: "E24092000123",
          patient: { first_name: "OLIVIA", last_name: "HARTLEY", member_id: "XKD449120200" },
          date_service: "2024-03-18",
          adjustments: [],
          services: [
            {
              procedure_code: "D0150",
              billed_cents: 9500,
              paid_cents: 8000,
              line_control: "PRC-7781",
              tooth_number: null,
              date_service: "2024-03-18",
              allowed_cents: 8000,
              adjustments: [{ group: "CO", reason: "45", amount_cents: 1500 }],
              remark_codes: [],
            },
            {
              procedure_code: "D0274",
              billed_cents: 7000,
              paid_cents: 5500,
              line_control: "PRC-7782",
              tooth_number: null,
              date_service: "2024-03-18",
              allowed_cents: 5500,
              adjustments: [{ group: "CO", reason: "45", amount_cents: 1500 }],
              remark_codes: [],
            },
            {
              procedure_code: "D2392",
              billed_cents: 22000,
              paid_cents: 10440,
              line_control: "PRC-7783",
              tooth_number: null,
              date_service: "2024-03-18",
              allowed_cents: 18050,
              adjustments: [
                { group: "CO", reason: "45", amount_cents: 3950 },
                { group: "PR", reason: "1", amount_cents: 5000 },
                { group: "PR", reason: "2", amount_cents: 2610 },
              ],
              remark_codes: ["N381", "M2"],
            },
          ],
          problems: [],
        },
        {
          index: 1,
          claim_number: "2024-000102",
          status_code: "22",
          billed_cents: -15000,
          paid_cents: -10400,
          patient_responsibility_cents: -1800,
          payer_claim_number: "E24070000456",
          patient: { first_name: "DANIEL", last_name: "OKAFOR", member_id: "XKD552310900" },
          // No DTM*232: the earliest line date.
          date_service: "2024-02-05",
          adjustments: [],
          services: [
            {
              procedure_code: "D1110",
              billed_cents: -11000,
              paid_cents: -7200,
              line_control: "PRC-6601",
              tooth_number: null,
              date_service: "2024-02-12",
              allowed_cents: -9000,
              adjustments: [
                { group: "CO", reason: "45", amount_cents: -2000 },
                { group: "PR", reason: "2", amount_cents: -1800 },
              ],
              remark_codes: [],
            },
            {
              procedure_code: "D1208",
              billed_cents: -4000,
              paid_cents: -3200,
              line_control: "PRC-6602",
              tooth_number: null,
              date_service: "2024-02-05",
              allowed_cents: null,
              adjustments: [{ group: "CO", reason: "45", amount_cents: -800 }],
              remark_codes: [],
            },
          ],
          problems: [],
        },
        {
          index: 2,
          claim_number: "2024-000190",
          status_code: "4",
          billed_cents: 26000,
          paid_cents: 0,
          patient_responsibility_cents: 0,
          payer_claim_number: "E24092000777",
          patient: { first_name: "ELLA", last_name: "PRICE", member_id: "XKD600011122" },
          date_service: "2023-08-15",
          adjustments: [{ group: "CO", reason: "29", amount_cents: 26000 }],
          services: [],
          problems: [],
        },
      ],
      provider_adjustments: [
        { reason: "WO", reference: "E23110000999", amount_cents: 2500 },
        { reason: "L6", reference: null, amount_cents: -102 },
      ],
      problems: [],
    });
  });

  test("the separators are the ISA's", () => {
    // "|" between elements, ">" between components (ISA16), no line breaks.
    const piped = HAND_WRITTEN.replaceAll("*", "|").replaceAll(":", ">").replaceAll("~\n", "~");
    expect(piped.slice(0, 106)).toEndWith("|P|>~");
    expect(parse835(piped)).toEqual(parse835(HAND_WRITTEN));
  });

  test("CRLF line ends, a byte order mark and a leading blank line are fine", () => {
    const era = parse835(`\uFEFF\r\n${HAND_WRITTEN.replaceAll("~\n", "~\r\n")}`);
    expect(era.total_paid_cents).toBe(11142);
    expect(era.claims).toHaveLength(3);
  });

  test("amounts are read from their text, not through a float", () => {
    // 0.29 * 100 is 28.999999999999996 and 4.35 * 100 is 434.99999999999994 in floating point.
    const text = HAND_WRITTEN.replace("CLP*2024-000190*4*260*0**", "CLP*2024-000190*4*260*0.29*4.35*").replace("BPR*C*111.42*", "BPR*C*111.71*");
    const era = parse835(text);
    expect(era.claims[2].paid_cents).toBe(29);
    expect(era.claims[2].patient_responsibility_cents).toBe(435);
    expect(era.total_paid_cents).toBe(11171);
    expect(era.problems).toEqual([]);
  });

  test("a fraction of a cent is refused, trailing zeros are not", () => {
    expect(parse835(HAND_WRITTEN.replace("AMT*B6*80~", "AMT*B6*80.000~")).claims[0].services[0].allowed_cents).toBe(8000);
    expect(parseError(HAND_WRITTEN.replace("AMT*B6*80~", "AMT*B6*80.005~")).message).toContain('"80.005" has a fraction of a cent');
    expect(parseError(HAND_WRITTEN.replace("AMT*B6*80~", "AMT*B6*80USD~")).message).toContain('"80USD" is not an amount');
  });
});

// ---------------------------------------------------------------- problems

describe("numbers that do not add up are problems, not errors", () => {
  const claim = balancedClaim("CUSP-000200", [
    { code: "D2740", billed: 120000, allowed: 90000, paid: 45000, deductible: 5000, line_control: "p1" },
    { code: "D2950", billed: 30000, allowed: 25000, paid: 15000, line_control: "p2" },
  ]);

  test("service lines paid against CLP04", () => {
    const era = parse835(build835(balancedEra([{ ...claim, paid_cents: claim.paid_cents + 100 }])));
    expect(era.claims[0].problems).toEqual(["Service lines paid 600.00, the claim says 601.00"]);
    // BPR02 follows the claims in balancedEra: the file itself adds up.
    expect(era.problems).toEqual([]);
  });

  test("a line's billed less its adjustments against its paid", () => {
    const lines = claim.services.map((s, i) =>
      i === 0 ? { ...s, adjustments: s.adjustments.map((a) => (a.reason === "45" ? { ...a, amount_cents: 29000 } : a)) } : s,
    );
    const era = parse835(build835(balancedEra([{ ...claim, services: lines }])));
    expect(era.claims[0].problems).toEqual(["Service line 1 (D2740): billed 1200.00 less adjustments 740.00 is 460.00, the line says paid 450.00"]);
  });

  test("service lines billed against CLP03", () => {
    const era = parse835(build835(balancedEra([{ ...claim, billed_cents: 100000 }])));
    expect(era.claims[0].problems).toEqual(["Service lines billed 1500.00, the claim says 1000.00"]);
  });

  test("BPR02 against the claims less the provider adjustments", () => {
    const input = balancedEra([claim], { provider_adjustments: [{ reason: "L6", reference: "INT", amount_cents: -512 }], total_paid_cents: 60000 });
    const era = parse835(build835(input));
    expect(era.problems).toEqual(["Claims paid 600.00 less provider adjustments -5.12 is 605.12, the payment (BPR02) says 600.00"]);
    expect(era.claims[0].problems).toEqual([]);
  });
});

// ---------------------------------------------------------------- refused

describe("files that are refused", () => {
  const good = build835(balancedEra([balancedClaim("CUSP-000300", [{ code: "D1110", billed: 11000, allowed: 9000, paid: 9000 }])]));

  test("text that is not X12, with node-x12's reason", () => {
    expect(parseError("").message).toBe(
      "Not a readable X12 file: X12 Standard: Document is too short. Document must be at least 113 characters long to be well-formed X12.",
    );
    expect(parseError("Dear provider, please find attached your remittance advice for March.").message).toContain("Document is too short");
    const pdfish = `%PDF-1.7\n${"1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n".repeat(5)}`;
    expect(parseError(pdfish).message).toStartWith("Not a readable X12 file: X12 Standard: The ISA segment is not the correct length");
  });

  test("an 837 is not an 835", () => {
    const claim837 = [
      "ISA*00*          *00*          *ZZ*CUSP           *ZZ*CLEARINGHOUSE  *240301*0800*^*00501*000000077*0*P*:~",
      "GS*HC*CUSP*CLEARINGHOUSE*20240301*0800*77*X*005010X224A2~",
      "ST*837*0001*005010X224A2~",
      "BHT*0019*00*CUSP-B77*20240301*0800*CH~",
      "NM1*41*2*MAPLE STREET DENTAL GROUP*****46*CUSP01~",
      "SE*4*0001~",
      "GE*1*77~",
      "IEA*1*000000077~",
    ].join("\n");
    expect(parseError(claim837).message).toBe("Not an 835: the transaction set is 837 (ST01)");
  });

  test("a 004010 835 is an ERA of another version", () => {
    const old = build835({ ...balancedEra([]), version: "004010X091A1" });
    expect(parseError(old).message).toBe("ERA of another version: 004010X091A1 (GS08/ST03), expected 005010X221A1");
  });

  test("a file cut short", () => {
    // node-x12 says nothing about a missing trailer: parse835 does.
    const noIea = good.slice(0, good.indexOf("IEA*"));
    expect(parseError(noIea).message).toBe("The file is truncated: no IEA (interchange trailer) segment");
    expect(parseError(good.slice(0, good.indexOf("SE*"))).message).toBe("The file is truncated: no IEA (interchange trailer) segment");
    // Cut inside the ISA, or a segment lost on the way: node-x12's own message.
    expect(parseError(good.slice(0, 90)).message).toBe(
      "Not a readable X12 file: X12 Standard: Document is too short. Document must be at least 113 characters long to be well-formed X12.",
    );
    const lost = good.replace(/\nDTM\*472\*[^~]*~/, "");
    expect(parseError(lost).message).toStartWith("Not a readable X12 file: X12 Standard: The value in SE01 (");
  });

  test("more than one transaction set", () => {
    const two = good.replace(/(ST\*835[\s\S]*?SE\*[^~]*~\n)/, "$1$1").replace("GE*1*", "GE*2*");
    expect(parseError(two).message).toBe("Expected exactly one transaction set (ST), found 2");
    expect(parseError(good + good).message).toBe("Expected one interchange (ISA), found 2");
  });

  test("BPR, TRN, N1*PR and N1*PE are required", () => {
    expect(parseError(withoutSegment(good, "BPR")).message).toBe("No BPR segment (financial information)");
    expect(parseError(withoutSegment(good, "TRN")).message).toBe("No TRN segment (reassociation trace number)");
    expect(parseError(good.replace("N1*PR*", "N1*ZZ*")).message).toBe("No N1*PR segment (the payer)");
    expect(parseError(good.replace("N1*PE*", "N1*ZZ*")).message).toBe("No N1*PE segment (the payee)");
  });

  test("an unknown adjustment group or a bad date", () => {
    expect(parseError(good.replace("CAS*CO*45*", "CAS*XX*45*")).message).toContain('"XX" is not a claim adjustment group');
    expect(parseError(good.replace("DTM*472*20240301", "DTM*472*20240231")).message).toContain('"20240231" is not a date');
  });
});

// ---------------------------------------------------------------- property

const CODES = ["D0120", "D0150", "D0274", "D1110", "D1208", "D2140", "D2392", "D2740", "D2950", "D3330", "D4341", "D7140"];
const GROUPS: CasGroup[] = ["CO", "PR", "OI", "PI", "CR"];

/** Strings over the characters a payer would use; cheaper to generate than fc.stringMatching. */
const arbText = (chars: string, maxLength: number) => fc.string({ unit: fc.constantFrom(...chars), minLength: 1, maxLength });
const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const ID = `${UPPER}0123456789`;
const DAY = 86_400_000;

const arbLine: fc.Arbitrary<BalancedLine> = fc
  .record({
    code: fc.constantFrom(...CODES),
    // billed ≥ allowed ≥ paid, and the deductible a share of the patient's part.
    amounts: fc.tuple(fc.integer({ min: 0, max: 2_000_000 }), fc.integer({ min: 0, max: 2_000_000 }), fc.integer({ min: 0, max: 2_000_000 })),
    deductible_percent: fc.integer({ min: 0, max: 100 }),
    co_reason: fc.constantFrom("45", "50", "97", "B7"),
    remarks: fc.subarray(["N130", "N381", "M2", "N59"]),
    line_control: fc.option(arbText(`${ID.toLowerCase()}_-`, 30), { nil: null }),
    day: fc.integer({ min: 0, max: 4000 }),
    tooth: fc.option(fc.constantFrom("1", "14", "30", "32", "A", "T", "51"), { nil: null }),
  })
  .map(({ amounts, deductible_percent, day, ...line }) => {
    const [billed, allowed, paid] = amounts.sort((a, b) => b - a);
    const deductible = Math.floor(((allowed - paid) * deductible_percent) / 100);
    return { ...line, billed, allowed, paid, deductible, date: new Date(Date.UTC(2020, 0, 1) + day * DAY).toISOString().slice(0, 10) };
  });

const arbAdjustment: fc.Arbitrary<Adjustment835> = fc.record({
  group: fc.constantFrom(...GROUPS),
  reason: fc.constantFrom("23", "45", "96", "131", "253"),
  amount_cents: fc.integer({ min: -500_000, max: 500_000 }),
});

const arbName = fc.option(arbText(`${UPPER}' -`, 20), { nil: null });

const arbClaim: fc.Arbitrary<Era835InputClaim> = fc
  .record({
    lines: fc.array(arbLine, { minLength: 0, maxLength: 5 }),
    // Sorted by group: the file has one CAS per group, so they read back grouped.
    adjustments: fc.array(arbAdjustment, { maxLength: 8 }).map((as) => as.sort((a, b) => GROUPS.indexOf(a.group) - GROUPS.indexOf(b.group))),
    reversal: fc.boolean(),
    payer_claim_number: fc.option(arbText(ID, 20), { nil: null }),
    patient: fc.record({ first_name: arbName, last_name: arbName, member_id: fc.option(arbText(ID, 20), { nil: null }) }),
  })
  .map(({ lines, adjustments, reversal, payer_claim_number, patient }) => {
    const claim = balancedClaim("C", lines, { payer_claim_number, patient, adjustments });
    return reversal ? reversalOf(claim) : claim;
  });

const arbPlb = fc.array(
  fc.record({
    reason: fc.constantFrom("WO", "L6", "FB", "CS", "72"),
    reference: fc.option(arbText(ID, 20), { nil: null }),
    amount_cents: fc.integer({ min: -200_000, max: 200_000 }),
  }),
  { maxLength: 9 },
);

describe("property", () => {
  test("build835 → parse835 keeps every amount of random balanced claims, and finds nothing wrong", () => {
    fc.assert(
      fc.property(
        fc.array(arbClaim, { maxLength: 6 }),
        arbPlb,
        fc.constantFrom("check", "eft", "other", "virtual_card") as fc.Arbitrary<Era835["payment_type"]>,
        (claims, plb, payment_type) => {
          const input = balancedEra(
            claims.map((c, i) => ({ ...c, claim_number: `CUSP-${String(i).padStart(6, "0")}` })),
            { provider_adjustments: plb, payment_type },
          );
          expect(parse835(build835(input))).toEqual(expected(input));
        },
      ),
      { seed: 8350501, numRuns: 150 },
    );
  });
});

// ---------------------------------------------------------------- size

test("a 1,000-claim file builds and parses", () => {
  const claims = Array.from({ length: 1000 }, (_, i) =>
    balancedClaim(`CUSP-${String(i).padStart(6, "0")}`, [
      { code: "D0120", billed: 6500, allowed: 4800, paid: 4800, line_control: `p${i}a` },
      { code: "D1110", billed: 11000, allowed: 8900, paid: 7120, line_control: `p${i}b` },
      { code: "D2392", billed: 24000 + i, allowed: 18000, paid: 10400, deductible: 5000, line_control: `p${i}c` },
    ]),
  );
  const input = balancedEra(claims, { provider_adjustments: [{ reason: "WO", reference: "R1", amount_cents: 12345 }] });
  const era = parse835(build835(input));
  expect(era.claims).toHaveLength(1000);
  expect(era.claims.reduce((n, c) => n + c.services.length, 0)).toBe(3000);
  expect(era.claims[999].claim_number).toBe("CUSP-000999");
  expect(era.claims[999].billed_cents).toBe(6500 + 11000 + 24999);
  expect(era.total_paid_cents).toBe(1000 * (4800 + 7120 + 10400) - 12345);
  expect(era.problems).toEqual([]);
  expect(era.claims.every((c) => c.problems.length === 0)).toBe(true);
});
