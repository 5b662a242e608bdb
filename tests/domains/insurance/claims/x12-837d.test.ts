import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { build837D, check837D, claimProblems837D } from "@/domains/insurance/claims/x12/837d";
import type { Batch837, Claim837, Line837, X12Address } from "@/domains/insurance/claims/x12/types";

// The 837D builder: what goes in a file and what is left out with its
// problems, read back with node-x12 (check837D) so every claim, line, fee,
// tooth and total is what was meant; plus a property over random claims.

const OFFICE: X12Address = { line1: "100 Main St", line2: "Suite 2", city: "Springfield", state: "IL", zip: "62701-1234" };
const NORTH: X12Address = { line1: "9 North Ave", line2: null, city: "Shelbyville", state: "IL", zip: "62565" };
const HOME: X12Address = { line1: "12 Elm St", line2: null, city: "Springfield", state: "IL", zip: "62704" };

const billing = (over: Partial<Claim837["billing_provider"]> = {}): Claim837["billing_provider"] => ({
  name: "Cusp Family Dental",
  npi: "1234567893",
  tax_id: "12-3456789",
  taxonomy: "1223G0001X",
  address: OFFICE,
  ...over,
});

const line = (over: Partial<Line837> = {}): Line837 => ({
  line_control: "cp-1",
  procedure_code: "D0120",
  fee_cents: 5000,
  date_service: "2025-03-01",
  tooth_number: null,
  surfaces: null,
  area: null,
  requires_tooth: false,
  other_payer_paid_cents: null,
  ...over,
});

const claim = (over: Partial<Claim837> = {}): Claim837 => ({
  claim_number: "X-1",
  claim_type: "primary",
  place_of_service: "11",
  prior_authorization_number: null,
  billing_provider: billing(),
  treating_provider: null,
  payer: { name: "Delta Dental of Illinois", id: "05029", address: { line1: null, line2: null, city: null, state: null, zip: null } },
  subscriber: {
    member_id: "DD123456",
    first_name: "Jane",
    last_name: "Doe",
    birthdate: "1980-05-17",
    gender: "F",
    address: HOME,
    group_number: "GRP-100",
    group_name: "Acme Corp",
    payer_responsibility: "P",
  },
  patient: null,
  other_payer: null,
  lines: [line()],
  attachments: [],
  ...over,
});

// Patient = subscriber, a treating provider, prior authorization and an attachment.
const A = claim({
  claim_number: "A-1001",
  prior_authorization_number: "PA-77",
  treating_provider: { first_name: "Sam", last_name: "Molar", npi: "1679576722", taxonomy: "1223G0001X" },
  attachments: [{ report_type: "RB", control_number: "XR-1" }],
  lines: [
    line({ line_control: "cp-a1", procedure_code: "D0120", fee_cents: 5000, date_service: "2025-03-01" }),
    line({ line_control: "cp-a2", procedure_code: "D2740", fee_cents: 120000, date_service: "2025-02-20", tooth_number: "3", requires_tooth: true }),
    line({
      line_control: "cp-a3",
      procedure_code: "D2392",
      fee_cents: 21550,
      date_service: "2025-03-01",
      tooth_number: "19",
      surfaces: "MOD",
      requires_tooth: true,
    }),
  ],
});

// The patient is the subscriber's child; another billing provider (another office and NPI).
const B = claim({
  claim_number: "B-2002",
  billing_provider: billing({ name: "Cusp Dental North", npi: "1497758544", address: NORTH, taxonomy: null, tax_id: null }),
  patient: { first_name: "Timmy", last_name: "Doe", birthdate: "2015-09-01", gender: "M", address: HOME, relationship: "19" },
  lines: [
    line({ line_control: "cp-b1", procedure_code: "D1120", fee_cents: 6500 }),
    line({ line_control: "cp-b2", procedure_code: "D2930", fee_cents: 31000, tooth_number: "K", requires_tooth: true }),
    line({ line_control: "cp-b3", procedure_code: "D1351", fee_cents: 5000, tooth_number: "30", surfaces: "O", requires_tooth: true }),
    line({ line_control: "cp-b4", procedure_code: "D4341", fee_cents: 24000, area: "UR" }),
  ],
});

// Secondary: the primary payer paid, on the claim and on one line.
const C = claim({
  claim_number: "C-3003",
  claim_type: "secondary",
  subscriber: { ...claim().subscriber, member_id: "DD999", payer_responsibility: "S" },
  other_payer: { name: "Aetna Dental", id: "60054", member_id: "W123456", paid_cents: 48000, payer_responsibility: "P" },
  lines: [
    line({ line_control: "cp-c1", procedure_code: "D2750", fee_cents: 120000, tooth_number: "14", requires_tooth: true, other_payer_paid_cents: 48000 }),
    line({ line_control: "cp-c2", procedure_code: "D0220", fee_cents: 3000 }),
  ],
});

const NO_NPI = claim({ claim_number: "D-4004", billing_provider: billing({ npi: null }) });
const NO_TOOTH = claim({
  claim_number: "E-5005",
  lines: [line(), line({ line_control: "cp-e2", procedure_code: "D2391", fee_cents: 18000, surfaces: "O", requires_tooth: true })],
});

const batch = (claims: Claim837[], over: Partial<Batch837["envelope"]> = {}): Batch837 => ({
  envelope: { sender_id: "CUSPDENTAL", receiver_id: "CLAIMHUB", control_number: 1207, created_at: new Date("2025-03-04T15:07:00Z"), usage: "T", ...over },
  submitter: { name: "Cusp Family Dental", id: "SUB-77", contact_name: "Ann Front", contact_phone: "(217) 555-0100", contact_email: "billing@cusp.test" },
  receiver: { name: "Claim Hub", id: "CLAIMHUB" },
  claims,
});

const segmentsOf = (text: string) => text.split("~").filter((s) => s !== "");
/** What check837D should read back for a claim as given. */
const expected = (c: Claim837) => ({
  claim_number: c.claim_number,
  total_cents: c.lines.reduce((s, l) => s + l.fee_cents, 0),
  line_count: c.lines.length,
  lines: c.lines.map((l) => ({ procedure_code: l.procedure_code, fee_cents: l.fee_cents, tooth_number: l.tooth_number, surfaces: l.surfaces })),
  line_total_ok: true,
  member_id: c.subscriber.member_id,
  payer_id: c.payer.id,
  billing_npi: c.billing_provider.npi,
  attachments: c.attachments,
});

describe("build837D: a mixed batch", () => {
  const built = build837D(batch([A, NO_NPI, B, C, NO_TOOTH]));
  const text = built.text as string;
  const segs = segmentsOf(text);

  test("leaves out the claims that cannot be sent, with their problems", () => {
    expect(built.problems).toEqual([
      { claim_number: "D-4004", problems: ["The billing provider has no NPI"] },
      { claim_number: "E-5005", problems: ["Line 2 (D2391) has no tooth number"] },
    ]);
    // grouped by billing provider: A and C share one
    expect(built.written).toEqual(["A-1001", "C-3003", "B-2002"]);
  });

  test("one interchange with the fixed-width ISA and the 837D envelope", () => {
    expect(text.indexOf("~")).toBe(105);
    expect(segs[0]).toBe("ISA*00*          *00*          *ZZ*CUSPDENTAL     *ZZ*CLAIMHUB       *250304*1507*^*00501*000001207*0*T*:");
    expect(segs[0].length + 1).toBe(106);
    expect(segs[1]).toBe("GS*HC*CUSPDENTAL*CLAIMHUB*20250304*1507*1207*X*005010X224A2");
    expect(segs[2]).toBe("ST*837*1207*005010X224A2");
    expect(segs[3]).toBe("BHT*0019*00*1207*20250304*1507*CH");
    expect(segs[4]).toBe("NM1*41*2*CUSP FAMILY DENTAL*****46*SUB-77");
    expect(segs[5]).toBe("PER*IC*ANN FRONT*TE*2175550100*EM*billing@cusp.test");
    expect(segs[6]).toBe("NM1*40*2*CLAIM HUB*****46*CLAIMHUB");
    expect(segs.filter((s) => s.startsWith("ISA") || s.startsWith("GS*") || s.startsWith("ST*"))).toHaveLength(3);
    expect(segs.at(-2)).toBe("GE*1*1207");
    expect(segs.at(-1)).toBe("IEA*1*000001207");
    const st = segs.findIndex((s) => s.startsWith("ST*"));
    const se = segs.findIndex((s) => s.startsWith("SE*"));
    expect(segs[se]).toBe(`SE*${se - st + 1}*1207`);
  });

  test("billing provider and subscriber loops, HLs in order", () => {
    expect(segs.filter((s) => s.startsWith("HL*"))).toEqual(["HL*1**20*1", "HL*2*1*22*0", "HL*3*1*22*0", "HL*4**20*1", "HL*5*4*22*1", "HL*6*5*23*0"]);
    const at = segs.indexOf("HL*1**20*1");
    expect(segs.slice(at, at + 12)).toEqual([
      "HL*1**20*1",
      "PRV*BI*PXC*1223G0001X",
      "NM1*85*2*CUSP FAMILY DENTAL*****XX*1234567893",
      "N3*100 MAIN ST*SUITE 2",
      "N4*SPRINGFIELD*IL*627011234",
      "REF*EI*123456789",
      "HL*2*1*22*0",
      "SBR*P*18*GRP-100*ACME CORP*****CI",
      "NM1*IL*1*DOE*JANE****MI*DD123456",
      "N3*12 ELM ST",
      "N4*SPRINGFIELD*IL*62704",
      "DMG*D8*19800517*F",
    ]);
    expect(segs).toContain("NM1*PR*2*DELTA DENTAL OF ILLINOIS*****PI*05029");
  });

  test("claim A: CLM, service date, attachment, prior authorization, treating provider, lines", () => {
    const at = segs.indexOf("CLM*A-1001*1465.5***11:B:1*Y*A*Y*Y");
    expect(at).toBeGreaterThan(0);
    expect(segs.slice(at, at + 21)).toEqual([
      "CLM*A-1001*1465.5***11:B:1*Y*A*Y*Y",
      "DTP*472*D8*20250220",
      "PWK*RB*BM***AC*XR-1",
      "REF*G1*PA-77",
      "NM1*82*1*MOLAR*SAM****XX*1679576722",
      "PRV*PE*PXC*1223G0001X",
      "LX*1",
      "SV3*AD:D0120*50****1",
      "DTP*472*D8*20250301",
      "REF*6R*cp-a1",
      "LX*2",
      "SV3*AD:D2740*1200****1",
      "TOO*JP*3",
      "DTP*472*D8*20250220",
      "REF*6R*cp-a2",
      "LX*3",
      "SV3*AD:D2392*215.5****1",
      "TOO*JP*19*M:O:D",
      "DTP*472*D8*20250301",
      "REF*6R*cp-a3",
      "HL*3*1*22*0",
    ]);
  });

  test("claim B: the patient loop under the subscriber, primary tooth, area", () => {
    const at = segs.indexOf("HL*5*4*22*1");
    expect(segs.slice(at, at + 3)).toEqual(["HL*5*4*22*1", "SBR*P**GRP-100*ACME CORP*****CI", "NM1*IL*1*DOE*JANE****MI*DD123456"]);
    const pat = segs.indexOf("HL*6*5*23*0");
    expect(segs.slice(pat, pat + 7)).toEqual([
      "HL*6*5*23*0",
      "PAT*19",
      "NM1*QC*1*DOE*TIMMY",
      "N3*12 ELM ST",
      "N4*SPRINGFIELD*IL*62704",
      "DMG*D8*20150901*M",
      "CLM*B-2002*665***11:B:1*Y*A*Y*Y",
    ]);
    expect(segs).toContain("TOO*JP*K");
    expect(segs).toContain("TOO*JP*30*O");
    expect(segs).toContain("SV3*AD:D4341*240**10**1");
    // B's billing provider has no taxonomy or tax id: no PRV*BI, no REF*EI
    const bp = segs.indexOf("HL*4**20*1");
    expect(segs.slice(bp, bp + 4)).toEqual(["HL*4**20*1", "NM1*85*2*CUSP DENTAL NORTH*****XX*1497758544", "N3*9 NORTH AVE", "N4*SHELBYVILLE*IL*62565"]);
  });

  test("claim C: the other payer (2320/2330) and its line payment (2430)", () => {
    const at = segs.indexOf("CLM*C-3003*1230***11:B:1*Y*A*Y*Y");
    expect(segs.slice(at, at + 16)).toEqual([
      "CLM*C-3003*1230***11:B:1*Y*A*Y*Y",
      "DTP*472*D8*20250301",
      "SBR*P*18*******CI",
      "AMT*D*480",
      "OI***Y***Y",
      "NM1*IL*1*DOE*JANE****MI*W123456",
      "NM1*PR*2*AETNA DENTAL*****PI*60054",
      "LX*1",
      "SV3*AD:D2750*1200****1",
      "TOO*JP*14",
      "DTP*472*D8*20250301",
      "REF*6R*cp-c1",
      "SVD*60054*480*AD:D2750**1",
      "LX*2",
      "SV3*AD:D0220*30****1",
      "DTP*472*D8*20250301",
    ]);
  });

  test("check837D reads every claim back with node-x12", () => {
    const checked = check837D(text);
    expect(checked.control_number).toBe(1207);
    expect(checked.transaction_count).toBe(1);
    expect(checked.segment_count_ok).toBe(true);
    expect(checked.claims).toEqual([expected(A), expected(C), expected(B)]);
    expect(checked.claims.map((c) => c.total_cents)).toEqual([146550, 123000, 66500]);
  });
});

describe("build837D: claims left out", () => {
  test("a file of only bad claims has no text", () => {
    const built = build837D(batch([NO_NPI, NO_TOOTH]));
    expect(built.text).toBeNull();
    expect(built.written).toEqual([]);
    expect(built.problems.map((p) => p.claim_number)).toEqual(["D-4004", "E-5005"]);
  });

  test("each problem is named", () => {
    const bad = claim({
      claim_type: "secondary",
      place_of_service: "1",
      billing_provider: billing({ npi: "12345" }),
      treating_provider: { first_name: "Sam", last_name: "Molar", npi: null, taxonomy: null },
      payer: { name: "Nobody", id: null, address: OFFICE },
      subscriber: { ...claim().subscriber, member_id: " " },
      lines: [line({ procedure_code: "D2391", tooth_number: "33", surfaces: "MOX", requires_tooth: true }), line({ area: "XX", date_service: "2025-02-30" })],
    });
    expect(claimProblems837D(bad)).toEqual([
      "The place of service is not a 2-digit code",
      "The billing provider NPI is not 10 digits",
      "The treating provider has no NPI",
      "The payer has no electronic payer id",
      "The subscriber has no member id",
      "The secondary claim has no other payer",
      'Line 1 (D2391) tooth "33" is not a tooth (1-32, A-T, 51-82)',
      'Line 1 (D2391) surfaces "MOX" are not up to 5 of M, O, D, B, F, I, L',
      'Line 2 (D0120) area "XX" is not UR, UL, LR, LL, U or L',
      "Line 2 (D0120) service date is not a date (YYYY-MM-DD)",
    ]);
    expect(claimProblems837D(claim({ lines: [] }))).toEqual(["The claim has no lines"]);
    expect(claimProblems837D(claim({ lines: [line({ surfaces: "O" })] }))).toEqual(["Line 1 (D0120) has surfaces but no tooth number"]);
    expect(claimProblems837D(claim({ treating_provider: { first_name: "A", last_name: "B", npi: "12345678901", taxonomy: null } }))).toEqual([
      "The treating provider NPI is not 10 digits",
    ]);
    expect(claimProblems837D(claim({ lines: Array.from({ length: 51 }, () => line()) }))).toEqual(["The claim has 51 lines (837D allows 50)"]);
    expect(claimProblems837D(claim({ other_payer: { name: "Aetna", id: null, member_id: null, paid_cents: 0, payer_responsibility: "P" } }))).toEqual([
      "The other payer has no electronic payer id",
      "The other payer has no member id",
    ]);
  });

  test("ADA universal tooth numbers", () => {
    const ok = (tooth: string) => claimProblems837D(claim({ lines: [line({ tooth_number: tooth, requires_tooth: true })] })).length === 0;
    for (const t of ["1", "16", "32", "A", "K", "T", "51", "66", "82"]) expect(ok(t)).toBe(true);
    for (const t of ["0", "01", "33", "50", "83", "U", "a", "3 "]) expect(ok(t)).toBe(false);
  });

  test("a claim number twice: the second is left out", () => {
    const built = build837D(batch([A, A]));
    expect(built.written).toEqual(["A-1001"]);
    expect(built.problems).toEqual([{ claim_number: "A-1001", problems: ["The claim number is already in this batch"] }]);
  });

  test("a bad envelope throws", () => {
    expect(() => build837D(batch([A], { sender_id: "SIXTEENCHARSLONG" }))).toThrow(/sender_id/);
    expect(() => build837D(batch([A], { receiver_id: "HUB*1" }))).toThrow(/receiver_id/);
    expect(() => build837D(batch([A], { control_number: 0 }))).toThrow(/control_number/);
    expect(() => build837D(batch([A], { control_number: 1_000_000_000 }))).toThrow(/control_number/);
  });
});

describe("build837D: other shapes", () => {
  test("a predetermination: CLM19 PB and no service dates", () => {
    const built = build837D(batch([claim({ claim_number: "P-1", claim_type: "preauth", lines: [line({ date_service: "" })] })]));
    const segs = segmentsOf(built.text as string);
    expect(segs).toContain("CLM*P-1*50***11:B:1*Y*A*Y*Y**********PB");
    expect(segs.some((s) => s.startsWith("DTP*472"))).toBe(false);
    expect(check837D(built.text as string).claims[0].total_cents).toBe(5000);
  });

  test("claims of the same billing provider share its HL", () => {
    const built = build837D(batch([claim({ claim_number: "S-1" }), claim({ claim_number: "S-2" })]));
    const segs = segmentsOf(built.text as string);
    expect(segs.filter((s) => s.startsWith("HL*"))).toEqual(["HL*1**20*1", "HL*2*1*22*0", "HL*3*1*22*0"]);
    expect(segs.filter((s) => s.startsWith("NM1*85"))).toHaveLength(1);
  });

  test("free text: names uppercase, no separators, ASCII; identifiers keep their case", () => {
    const built = build837D(
      batch([
        claim({
          claim_number: "t-1",
          subscriber: { ...claim().subscriber, member_id: "dd123456", first_name: "Zoë*~", last_name: "O'Brien: ^Núñez", group_name: "Acme^ Corp" },
          prior_authorization_number: "pa:1~2",
        }),
      ]),
    );
    const segs = segmentsOf(built.text as string);
    expect(segs).toContain("NM1*IL*1*O'BRIEN NUNEZ*ZOE****MI*dd123456");
    expect(segs).toContain("CLM*t-1*50***11:B:1*Y*A*Y*Y");
    expect(segs).toContain("SBR*P*18*GRP-100*ACME CORP*****CI");
    expect(segs).toContain("REF*G1*pa12");
    expect(check837D(built.text as string).claims.map((c) => [c.claim_number, c.member_id])).toEqual([["t-1", "dd123456"]]);
  });

  test("money: whole dollars, one or two decimals", () => {
    const built = build837D(
      batch([claim({ lines: [line({ fee_cents: 130000 }), line({ fee_cents: 130050 }), line({ fee_cents: 130055 }), line({ fee_cents: 7 })] })]),
    );
    const sv3 = segmentsOf(built.text as string).filter((s) => s.startsWith("SV3"));
    expect(sv3).toEqual(["SV3*AD:D0120*1300****1", "SV3*AD:D0120*1300.5****1", "SV3*AD:D0120*1300.55****1", "SV3*AD:D0120*0.07****1"]);
    expect(segmentsOf(built.text as string)).toContain("CLM*X-1*3901.12***11:B:1*Y*A*Y*Y");
  });
});

describe("check837D", () => {
  const text = build837D(batch([A, C])).text as string;

  test("throws on what is not an 837D", () => {
    expect(() => check837D("hello")).toThrow();
    expect(() => check837D("")).toThrow();
    expect(() => check837D(`ISA*${"x".repeat(200)}~`)).toThrow();
    // cut short: no GE/IEA
    expect(() => check837D(text.slice(0, text.indexOf("GE*")))).toThrow();
    // an 835
    expect(() => check837D(text.replace("ST*837*", "ST*835*"))).toThrow(/837/);
    expect(() => check837D(text.replace("X*005010X224A2", "X*005010X221A1"))).toThrow(/837D/);
    // a wrong amount
    expect(() => check837D(text.replace("SV3*AD:D0120*50*", "SV3*AD:D0120*5O*"))).toThrow(/SV302/);
  });

  test("reports a wrong SE01 and a CLM02 that is not the sum of its lines", () => {
    const se = /SE\*(\d+)\*/.exec(text) as RegExpExecArray;
    const badCount = check837D(text.replace(se[0], `SE*${Number(se[1]) + 1}*`));
    expect(badCount.segment_count_ok).toBe(false);
    const badTotal = check837D(text.replace("CLM*A-1001*1465.5*", "CLM*A-1001*1465.51*"));
    expect(badTotal.segment_count_ok).toBe(true);
    expect(badTotal.claims.map((c) => c.line_total_ok)).toEqual([false, true]);
    expect(badTotal.claims[0].total_cents).toBe(146551);
  });
});

describe("property: random valid claims read back as written", () => {
  const TEETH = ["1", "8", "14", "19", "30", "32", "A", "J", "K", "T", "51", "82"];
  const CODES = ["D0120", "D0220", "D1110", "D2140", "D2392", "D2740", "D3330", "D4341", "D7140"];
  const lineArb = fc.record({
    procedure_code: fc.constantFrom(...CODES),
    fee_cents: fc.integer({ min: 0, max: 5_000_000 }),
    tooth_number: fc.option(fc.constantFrom(...TEETH), { nil: null }),
    surfaces: fc.option(fc.subarray(["M", "O", "D", "B", "L"], { minLength: 1 }), { nil: null }),
    day: fc.integer({ min: 1, max: 28 }),
  });
  const claimArb = fc.record({
    lines: fc.array(lineArb, { minLength: 1, maxLength: 50 }),
    preauth: fc.boolean(),
    child: fc.boolean(),
  });

  test("totals, lines, teeth and surfaces equal the inputs", () => {
    fc.assert(
      fc.property(fc.array(claimArb, { minLength: 1, maxLength: 3 }), (specs) => {
        const claims = specs.map((s, i) =>
          claim({
            claim_number: `R-${i + 1}`,
            claim_type: s.preauth ? "preauth" : "primary",
            patient: s.child ? { first_name: "Kid", last_name: "Doe", birthdate: "2016-01-01", gender: "U", address: HOME, relationship: "19" } : null,
            lines: s.lines.map((l, j) =>
              line({
                line_control: `cp-${i}-${j}`,
                procedure_code: l.procedure_code,
                fee_cents: l.fee_cents,
                date_service: `2025-01-${String(l.day).padStart(2, "0")}`,
                tooth_number: l.tooth_number,
                // surfaces only with a tooth: TOO carries them
                surfaces: l.tooth_number && l.surfaces ? l.surfaces.join("") : null,
              }),
            ),
          }),
        );
        const built = build837D(batch(claims));
        expect(built.problems).toEqual([]);
        const checked = check837D(built.text as string);
        expect(checked.segment_count_ok).toBe(true);
        expect(checked.claims).toEqual(claims.map(expected));
      }),
      { seed: 20250304, numRuns: 60 },
    );
  });
});
