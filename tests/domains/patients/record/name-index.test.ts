import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { sql } from "drizzle-orm";
import fc from "fast-check";
import { all, run } from "@/platform/db/work";
import { NameIndex, nameIndexOf } from "@/domains/patients/record/name-index";
import { nameMatch } from "@/domains/patients/record/search";
import { startTestApp, type TestApp } from "@tests/helpers";
import { orgDb } from "@tests/domains/patients/record/fixtures";

// The in-memory name index answers exactly what the FTS5 table patients_fts
// answers (docs/patients/patients.md, "Search"): the same rows for every kind
// of name and term, and it follows every change to the names through the
// change log (tenant migration 0020).

let t: TestApp;
let admin: string;
let orgId: string;
type Db = Awaited<ReturnType<typeof orgDb>>;
let db: Db;

/** Characters names are made of here: the Latin alphabets with and without accents (composed and decomposed), other scripts, marks, punctuation, digits, a private-use character, an emoji. */
const CHARS = [
  ..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
  ..."éèêëáàâäãåçñóòôöõúùûüýÿíìîïÉÈÁÀÇÑÓÖÚÜÍøØßẞłŁđĐİıœŒæÆ",
  "e\u0301",
  "a\u0308",
  "n\u0303",
  "\u0301",
  ..."αβγδάέήΑΒΓΔΆабвгдйёАБВЙЁ李王张ひらカナ",
  ..."0123456789",
  ..." '-.,’",
  "\uE000",
  "😀",
  "ﬁ",
];
const nameArb = fc.array(fc.constantFrom(...CHARS), { minLength: 1, maxLength: 14 }).map((cs) => cs.join(""));

async function insertNames(rows: [string, string, string | null][]) {
  const now = new Date().toISOString();
  await db.write(function* (tx) {
    for (const [first, last, preferred] of rows) {
      yield* run({
        run: () =>
          tx.run(sql`INSERT INTO patients (id, first_name, last_name, preferred_name, status, receives_email, receives_sms, allergy_review_status, consent_flags, premedication_required,
          balance_0_30_cents, balance_31_60_cents, balance_61_90_cents, balance_over_90_cents, estimated_balance_cents, insurance_estimate_cents, payment_plan_due_cents, created_at, updated_at, version)
          VALUES (${Bun.randomUUIDv7()}, ${first}, ${last}, ${preferred}, 'active', 0, 0, 'not_reviewed', 0, 0, 0, 0, 0, 0, 0, 0, 0, ${now}, ${now}, 1)`),
      });
    }
  });
}

/** What patients_fts answers for the name reading of `term` (search.ts's MATCH), sorted; null when it has no name reading. */
async function ftsRows(term: string): Promise<number[] | null> {
  const match = nameMatch(term);
  if (!match) return null;
  const rows = await db.read((d) =>
    all<{ rowid: number }>(d.select({ rowid: sql<number>`rowid` }).from(sql`patients_fts`).where(sql`patients_fts MATCH ${match}`)),
  );
  return rows.map((r) => r.rowid).sort((a, b) => a - b);
}

async function indexRows(index: NameIndex, term: string): Promise<number[] | null> {
  await db.read((d) => index.catchUp(d));
  return index.match(term)?.sort((a, b) => a - b) ?? null;
}

/** Terms a person types: prefixes of the names' words, both forms, other cases, and noise. */
function termsFor(names: [string, string, string | null][], random: () => number): string[] {
  const words = names.flatMap(([f, l, p]) => [f, l, p ?? ""].flatMap((n) => n.split(/[\s'\-.,’]+/).filter(Boolean)));
  const pick = () => words[Math.floor(random() * words.length)] ?? "x";
  const prefix = (w: string) => w.slice(0, 1 + Math.floor(random() * w.length));
  const out: string[] = [];
  for (let i = 0; i < 120; i++) {
    const a = prefix(pick());
    const b = prefix(pick());
    out.push(a, `${a} ${b}`, `${b}, ${a}`, `${a},`, `, ${b}`, a.toUpperCase(), `  ${a}-${b} `, a.normalize("NFD"), a.normalize("NFC"));
  }
  return out;
}

beforeAll(async () => {
  t = await startTestApp();
  admin = await t.adminToken();
  orgId = (await t.createOrg(admin)).id;
  db = await orgDb(t, orgId);
});
afterAll(() => t.close());

describe("the name index answers as patients_fts does", () => {
  test("each character is folded as unicode61 with remove_diacritics 2 folds it (SQLite's own tokens, from fts5vocab)", () => {
    const sqlite = new Database(":memory:");
    sqlite.exec("CREATE VIRTUAL TABLE f USING fts5(a, tokenize='unicode61 remove_diacritics 2')");
    sqlite.exec("CREATE VIRTUAL TABLE v USING fts5vocab(f, 'instance')");
    const insert = sqlite.query("INSERT INTO f (rowid, a) VALUES (?, ?)");
    // every character of the pool, and every letter of the Latin, Greek and Cyrillic blocks
    const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String.fromCodePoint(from + i));
    const chars = [...CHARS, ...range(0xc0, 0x24f), ...range(0x1e00, 0x1eff), ...range(0x386, 0x3ce), ...range(0x400, 0x45f)];
    chars.forEach((c, i) => insert.run(i + 1, `x${c}Y`));
    const tokens = sqlite.query("SELECT doc, term FROM v ORDER BY doc, offset").all() as { doc: number; term: string }[];
    const index = new NameIndex();
    const words = (i: number) => tokens.filter((r) => r.doc === i + 1).map((r) => r.term);
    const differ = chars.filter((c, i) => !Bun.deepEquals(index.storedWordsOf(`x${c}Y`), words(i)));
    expect(differ).toEqual([]);
    sqlite.close();
  });

  test("for generated names in every script and every kind of term (property: 12 runs of 40 names and ~1,000 terms)", async () => {
    let seed = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(nameArb, nameArb, fc.option(nameArb, { nil: null })), { minLength: 5, maxLength: 40 }),
        fc.integer(),
        async (names, s) => {
          await insertNames(names);
          const index = new NameIndex();
          let x = (s ^ ++seed) >>> 0 || 1;
          const random = () => (x = (x * 1664525 + 1013904223) >>> 0) / 2 ** 32;
          for (const term of termsFor(names, random)) {
            expect({ term, rows: await indexRows(index, term) }).toEqual({ term, rows: await ftsRows(term) });
          }
        },
      ),
      { numRuns: 12 },
    );
  }, 120_000);

  test("known cases: accents either way, apostrophes and hyphens, Last, First, preferred names, no words", async () => {
    await insertNames([
      ["José", "García", null],
      ["Jose\u0301", "Garci\u0301a", null],
      ["Mary-Kate", "O'Brien", "Mae"],
      ["Zoë", "Smith Jones", null],
      ["ZOE", "smith", "Zed"],
    ]);
    const index = new NameIndex();
    for (const term of [
      "jose",
      "José garc",
      "GARCÍA, jos",
      "o'brien",
      "brien mary",
      "kate",
      "mae",
      "O'Brien, Mae",
      "zoe",
      "zoë smi",
      "smith, z",
      "jones",
      ",",
      " ",
      "-",
      "Smith,",
      ", Zed",
      "李",
    ]) {
      expect({ term, rows: await indexRows(index, term) }).toEqual({ term, rows: await ftsRows(term) });
    }
    // "Last, First" reads the last name only for the words before the comma
    expect((await indexRows(index, "mae, o"))!.length).toBe(0);
    expect((await indexRows(index, "o'brien, mae"))!.length).toBe(1);
  });
});

describe("the name index follows the names", () => {
  test("a rename, a new patient and an archived one are searched at once; many changes rebuild; a pruned log rebuilds", async () => {
    const P = `/api/v1/${orgId}/patients`;
    const search = async (term: string) => {
      const r = await t.request("GET", `${P}?search=${encodeURIComponent(term)}&page_size=100`, { token: admin });
      expect(r.status).toBe(200);
      return (r.body.items as { id: string; first_name: string }[]).map((p) => p.first_name).sort();
    };
    const made = await t.request("POST", P, { token: admin, body: { first_name: "Quentin", last_name: "Quirke" } });
    expect(await search("quen quir")).toEqual(["Quentin"]);
    const index = nameIndexOf(db);
    const before = index.appliedSeq;
    const renamed = await t.request("PATCH", `${P}/${made.body.id}`, { token: admin, body: { base_version: made.body.version, first_name: "Quincy" } });
    expect(renamed.status).toBe(200);
    expect(await search("quen quir")).toEqual([]);
    expect(await search("quin quir")).toEqual(["Quincy"]);
    expect(index.appliedSeq).toBeGreaterThan(before);
    await t.request("POST", P, { token: admin, body: { first_name: "Quinn", last_name: "Quirke" } });
    expect(await search("qui quir")).toEqual(["Quincy", "Quinn"]);
    await t.request("POST", `${P}/${made.body.id}/archive`, { token: admin });
    expect(await search("qui quir")).toEqual(["Quinn"]);
    // 2,500 names changed at once (an import): the index is built again, and answers as FTS5
    await insertNames(Array.from({ length: 2_500 }, (_, i) => [`Bulk${i}`, "Loaded", null]));
    expect(await search("bulk1234 load")).toEqual(["Bulk1234"]);
    expect((await indexRows(index, "bulk1 load"))!.length).toBe((await ftsRows("bulk1 load"))!.length);
    // the log pruned past the index (another instance's writes, long ago): built again from the table
    await insertNames([["Xavier", "Pruned", null]]);
    await db.write(function* (tx) {
      yield* run({ run: () => tx.run(sql`DELETE FROM search_changes`) });
    });
    await insertNames([["Xena", "Pruned", null]]);
    expect(await search("x prun")).toEqual(["Xavier", "Xena"]);
  }, 60_000);

  test("the log keeps its last 100,000 entries: the trigger prunes it once in 1,000", async () => {
    await db.write(function* (tx) {
      yield* run({ run: () => tx.run(sql`INSERT INTO search_changes (seq, tbl, rid) VALUES (500000, 'patients', 1)`) });
      yield* run({ run: () => tx.run(sql`INSERT INTO search_changes (seq, tbl, rid) VALUES (600000, 'patients', 1)`) });
    });
    const left = await db.read((d) =>
      all<{ n: number; lo: number }>(d.select({ n: sql<number>`count(*)`, lo: sql<number>`min(seq)` }).from(sql`search_changes`)),
    );
    expect(left[0]!.lo).toBe(600_000);
    expect(left[0]!.n).toBe(1);
  });
});
