import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DRUG_ALLERGY_MAP } from "@/domains/patients/medical-history/drug-allergy-map";
import { interactionWarnings, normalize } from "@/domains/patients/medical-history/interactions";
import { medicalApp } from "./fixtures";

const allergy = (allergen: string, allergen_category = "drug", id = "a1") => ({ id, allergen, allergen_category });
const med = (med_descript: string | null, rx_cui: string | null = null) => ({ med_descript, rx_cui });
const title = (s: string) => s.replace(/\b\w/g, (c) => c.toUpperCase());

describe("the shipped drug-allergy map (table-driven)", () => {
  test("covers the dental cases it must", () => {
    expect(DRUG_ALLERGY_MAP.map((e) => e.id)).toEqual(
      expect.arrayContaining([
        "penicillin_class",
        "penicillin_cephalosporin_cross",
        "sulfonamide_antibiotics",
        "aspirin_nsaid",
        "opioid",
        "latex",
        "ester_local_anesthetic",
        "amide_local_anesthetic",
      ]),
    );
    const drugsOf = (id: string) => DRUG_ALLERGY_MAP.find((e) => e.id === id)!.drugs.map((d) => d.term);
    expect(drugsOf("penicillin_class")).toEqual(expect.arrayContaining(["amoxicillin", "ampicillin", "penicillin v", "amoxicillin clavulanate"]));
    expect(drugsOf("aspirin_nsaid")).toEqual(expect.arrayContaining(["ibuprofen", "naproxen"]));
    expect(drugsOf("opioid")).toEqual(expect.arrayContaining(["codeine", "hydrocodone", "oxycodone", "tramadol"]));
    expect(drugsOf("ester_local_anesthetic")).toEqual(expect.arrayContaining(["benzocaine", "tetracaine", "procaine"]));
    expect(drugsOf("amide_local_anesthetic")).toEqual(expect.arrayContaining(["lidocaine", "articaine"]));
    expect(new Set(DRUG_ALLERGY_MAP.map((e) => e.id)).size).toBe(DRUG_ALLERGY_MAP.length);
  });

  // every allergen term of an entry against every drug of it, written as a clinician would
  test.each(DRUG_ALLERGY_MAP.map((e) => [e.id, e] as const))("%s: every allergen term warns on every drug term", (rule, entry) => {
    const terms = entry.drugs.map((d) => d.term);
    for (const allergen of entry.allergen_terms) {
      for (const drug of terms) {
        const w = interactionWarnings([allergy(`${title(allergen)} allergy`)], med(`${title(drug)} 500 mg (as directed)`));
        const mine = w.filter((x) => x.rule === rule);
        expect([allergen, drug, mine.length]).toEqual([allergen, drug, 1]);
        // the longest term of the entry found in the text is reported
        const longest = terms.filter((t) => normalize(drug).includes(normalize(t))).sort((a, b) => b.length - a.length)[0];
        expect(mine[0]).toMatchObject({ allergy_id: "a1", allergen: `${title(allergen)} allergy`, medication_term: longest, severity: entry.severity });
        expect(mine[0]!.message).not.toContain("{");
        expect(mine[0]!.message).toContain(`${title(allergen)} allergy`);
      }
      // and by RxCUI alone
      for (const d of entry.drugs.filter((x) => x.rxcui)) {
        expect(interactionWarnings([allergy(allergen)], med(null, d.rxcui!)).find((x) => x.rule === rule)).toMatchObject({ medication_term: d.term });
      }
    }
  });

  test("an entry's allergen category matches on its own (latex)", () => {
    const w = interactionWarnings([allergy("Gloves", "latex")], med("Lidocaine 2% with epinephrine 1:100,000"));
    expect(w.map((x) => [x.rule, x.medication_term, x.severity])).toEqual([["latex", "lidocaine", "low"]]);
  });

  test.each([
    ["Penicillin", "Ibuprofen 400 mg tablet"],
    ["Penicillin", "Clindamycin 300 mg"],
    ["Aspirin", "Acetaminophen 500 mg"],
    ["Codeine", "Ibuprofen 600 mg"],
    ["Sulfa drugs", "Lidocaine 2% with epinephrine"],
    ["Ester anesthetics", "Articaine 4% with epinephrine"],
    ["Amide anesthetics", "Benzocaine 20% gel"],
    ["Peanuts", "Amoxicillin 500 mg"],
    ["Latex", "Ibuprofen 200 mg tablet"],
    ["Cephalosporins", "Amoxicillin 500 mg"],
  ])("no warning for a non-matching pair: %p and %p", (allergen, drug) => {
    expect(interactionWarnings([allergy(allergen)], med(drug))).toEqual([]);
  });

  test("terms match whole words only; case, accents and punctuation do not matter", () => {
    expect(interactionWarnings([allergy("Polyester")], med("Benzocaine gel"))).toEqual([]);
    expect(interactionWarnings([allergy("Epinephrine")], med("Epinephrine-free lidocaine"))).toHaveLength(1);
    expect(interactionWarnings([allergy("PENICILLIN")], med("amoxicillin/CLAVULANATE 875-125"))[0]).toMatchObject({
      medication_term: "amoxicillin clavulanate",
      rule: "penicillin_class",
    });
    expect(interactionWarnings([allergy("Pénicillin (rash)")], med("AMOXICILLIN"))).toHaveLength(1);
    expect(interactionWarnings([allergy("Penicillinase")], med("Amoxicillin"))).toEqual([]);
    expect(interactionWarnings([allergy("Codéine")], med("Tylenol #3"))[0]).toMatchObject({ rule: "opioid", medication_term: "tylenol 3" });
  });

  test("an allergen the map does not know warns when the medication names it (same_substance)", () => {
    const w = interactionWarnings([allergy("Clindamycin")], med("Clindamycin 300 mg capsule"));
    expect(w).toEqual([
      {
        allergy_id: "a1",
        allergen: "Clindamycin",
        medication_term: "clindamycin",
        severity: "high",
        rule: "same_substance",
        message: "Allergy to Clindamycin: the medication names the allergen itself.",
      },
    ]);
    expect(interactionWarnings([allergy("Egg")], med("Eggnog flavour syrup"))).toEqual([]);
  });

  test("several allergies: one warning for each allergy and map entry that match", () => {
    const w = interactionWarnings(
      [allergy("Penicillin", "drug", "p"), allergy("Latex", "latex", "l"), allergy("Peanuts", "food", "n")],
      med("Amoxicillin 500 mg injection vial"),
    );
    expect(w.map((x) => [x.allergy_id, x.rule])).toEqual([
      ["p", "penicillin_class"],
      ["l", "latex"],
    ]);
  });
});

describe("interaction_warnings through the API", () => {
  let m: Awaited<ReturnType<typeof medicalApp>>;
  beforeAll(async () => {
    m = await medicalApp();
  });
  afterAll(() => m.t.close());

  // one pair per entry, end to end
  test.each(DRUG_ALLERGY_MAP.map((e) => [e.id, e.allergen_terms[0]!, e.drugs[0]!.term] as const))(
    "%s: filled on create, empty on every later read",
    async (rule, allergen, drug) => {
      const p = await m.createPatient();
      const a = await m.createRecord(p.id, "allergies", { allergen, allergen_category: rule === "latex" ? "latex" : "drug" });
      const created = await m.t.request("POST", m.path(p.id, "medications"), { token: m.token, body: { med_descript: `${drug} (generic)`, dosage: "1 unit" } });
      expect(created.status).toBe(201);
      const entry = DRUG_ALLERGY_MAP.find((e) => e.id === rule)!;
      expect(created.body.interaction_warnings).toEqual([
        {
          allergy_id: a.id,
          allergen,
          medication_term: drug,
          severity: entry.severity,
          rule,
          message: entry.message.replaceAll("{allergen}", allergen).replaceAll("{drug}", drug),
        },
      ]);
      const id = created.body.id;
      expect((await m.t.request("GET", m.path(p.id, "medications", id), { token: m.token })).body.interaction_warnings).toEqual([]);
      expect((await m.t.request("GET", m.path(p.id, "medications"), { token: m.token })).body.items[0].interaction_warnings).toEqual([]);
      expect(
        (await m.t.request("PATCH", m.path(p.id, "medications", id), { token: m.token, body: { base_version: 1, dosage: "2 units" } })).body
          .interaction_warnings,
      ).toEqual([]);
      // the warning text never reaches the stream or the stored row
      const ev = await m.eventsOf(id);
      expect(JSON.stringify(ev)).not.toContain(allergen);
      expect(Object.keys((await m.rowOf("medications", id))!)).not.toContain("interaction_warnings");
    },
  );

  test("only ACTIVE allergies of THIS patient count; an rx_cui alone is enough", async () => {
    const p = await m.createPatient();
    const other = await m.createPatient();
    await m.createRecord(other.id, "allergies", { allergen: "Penicillin" });
    await m.createRecord(p.id, "allergies", { allergen: "Aspirin", is_active: false });
    const archived = await m.createRecord(p.id, "allergies", { allergen: "Codeine" });
    await m.t.request("POST", `${m.path(p.id, "allergies", archived.id)}/archive`, { token: m.token });
    const none = await m.t.request("POST", m.path(p.id, "medications"), {
      token: m.token,
      body: { med_descript: "Amoxicillin 500 mg, ibuprofen 600 mg, codeine 30 mg" },
    });
    expect(none.body.interaction_warnings).toEqual([]);
    const sulfa = await m.createRecord(p.id, "allergies", { allergen: "Sulfa" });
    const byCode = await m.t.request("POST", m.path(p.id, "medications"), { token: m.token, body: { rx_cui: "10180" } });
    expect(byCode.status).toBe(201);
    expect(byCode.body.interaction_warnings).toMatchObject([{ allergy_id: sulfa.id, rule: "sulfonamide_antibiotics", medication_term: "sulfamethoxazole" }]);
  });
});
