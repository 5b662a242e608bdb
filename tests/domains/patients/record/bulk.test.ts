import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "@tests/helpers";
import { patients, patientTags } from "@db/tenant/patients";
import { run } from "@/platform/db/work";
import { phoneDigits } from "@/domains/patients/record/search";
import { insertProvider, insertTag, orgDb } from "./fixtures";

// Thousands of patients written straight to the org database in one
// transaction, then every answer compared with a plain-JS oracle over the same
// rows. 6,000 rows: enough for both list strategies (matches sorted in memory
// up to 5,000 candidates, read in index order above).

const N = 6_000;
const FIRST = [
  "James",
  "Mary",
  "John",
  "Patricia",
  "Robert",
  "Jennifer",
  "Michael",
  "Linda",
  "William",
  "Elizabeth",
  "David",
  "Barbara",
  "Richard",
  "Susan",
  "Joseph",
  "Jessica",
  "Thomas",
  "Sarah",
  "Charles",
  "Karen",
];
const LAST = [
  "Smith",
  "Johnson",
  "Williams",
  "Brown",
  "Jones",
  "Garcia",
  "Miller",
  "Davis",
  "Rodriguez",
  "Martinez",
  "Hernandez",
  "Lopez",
  "Gonzalez",
  "Wilson",
  "Anderson",
  "Thomas",
  "Taylor",
  "Moore",
  "Jackson",
  "Martin",
  "Lee",
  "Perez",
  "Thompson",
  "White",
  "Harris",
  "Sanchez",
  "Clark",
  "Ramirez",
  "Lewis",
  "Smithson",
];

type Row = {
  id: string;
  first_name: string;
  last_name: string;
  preferred_name: string | null;
  date_of_birth: string | null;
  chart_number: string | null;
  mobile_phone: string | null;
  email: string | null;
  status: string;
  deleted_at: string | null;
  location_id: string;
  primary_provider_id: string | null;
  created_at: string;
  tagged: boolean;
};

let t: TestApp;
let token: string;
let P: string;
let locA: string;
let locB: string;
let prov1: string;
let tag: string;
const rows: Row[] = [];

function mulberry32(seed: number) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

beforeAll(async () => {
  t = await startTestApp();
  token = await t.adminToken();
  const orgId = (await t.createOrg()).id;
  P = `/api/v1/${orgId}/patients`;
  locA = (await t.request("POST", `/api/v1/${orgId}/locations`, { token, body: { name: "A", timezone: "UTC" } })).body.id;
  locB = (await t.request("POST", `/api/v1/${orgId}/locations`, { token, body: { name: "B", timezone: "UTC" } })).body.id;
  prov1 = await insertProvider(t, orgId, { first_name: "Ada", last_name: "Lovelace" });
  tag = await insertTag(t, orgId, "Recall");
  const rnd = mulberry32(7);
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const base = Date.parse("2024-01-01T00:00:00Z");
  for (let i = 0; i < N; i++) {
    const archived = i % 23 === 0;
    const created = new Date(base + i * 1000).toISOString();
    rows.push({
      id: Bun.randomUUIDv7(),
      first_name: pick(FIRST),
      last_name: pick(LAST),
      preferred_name: i % 11 === 0 ? pick(FIRST) : null,
      date_of_birth:
        i % 13 === 0
          ? null
          : `${1940 + Math.floor(rnd() * 80)}-${String(1 + Math.floor(rnd() * 12)).padStart(2, "0")}-${String(1 + Math.floor(rnd() * 28)).padStart(2, "0")}`,
      chart_number: i % 5 === 0 ? null : `CH${String(i).padStart(5, "0")}`,
      mobile_phone: i % 9 === 0 ? null : `(${200 + (i % 700)}) 555-${String(i).padStart(4, "0")}`,
      email: i % 4 === 0 ? null : `patient${i}@example.com`,
      status: archived ? "archived" : i % 17 === 0 ? "inactive" : i % 31 === 0 ? "prospective" : "active",
      deleted_at: archived ? created : null,
      location_id: i % 20 === 0 ? locB : locA,
      primary_provider_id: i % 3 === 0 ? prov1 : null,
      created_at: created,
      tagged: i % 7 === 0,
    });
  }
  const db = await orgDb(t, orgId);
  const now = new Date().toISOString();
  await db.write(function* (tx) {
    for (let k = 0; k < rows.length; k += 200) {
      const chunk = rows.slice(k, k + 200);
      yield* run(
        tx
          .insert(patients)
          .values(chunk.map(({ tagged: _t, ...r }) => ({ ...r, phone_digits: phoneDigits(r.mobile_phone), updated_at: r.created_at, version: 1 }))),
      );
      const tagged = chunk.filter((r) => r.tagged);
      if (tagged.length) yield* run(tx.insert(patientTags).values(tagged.map((r) => ({ patient_id: r.id, tag_definition_id: tag, created_at: now }))));
    }
  });
});
afterAll(() => t.close());

// ---- the oracle ----------------------------------------------------------------------

const cmp = (a: string | null, b: string | null) => (a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1);
const SORT: Record<string, (keyof Row)[]> = {
  last_name: ["last_name", "first_name"],
  first_name: ["first_name", "last_name"],
  date_of_birth: ["date_of_birth"],
  chart_number: ["chart_number"],
  created_at: ["created_at"],
  status: ["status", "last_name", "first_name"],
};
function expected(filter: (r: Row) => boolean, sortBy = "last_name", dir: "asc" | "desc" = "asc", status?: string) {
  const sign = dir === "asc" ? 1 : -1;
  return rows
    .filter((r) => (status ? r.status === status : r.status !== "archived"))
    .filter(filter)
    .sort((a, b) => {
      for (const k of [...SORT[sortBy]!, "id" as const]) {
        const c = cmp(a[k] as string | null, b[k] as string | null);
        if (c) return sign * c;
      }
      return 0;
    })
    .map((r) => r.id);
}
const words = (r: Row) => [r.first_name, r.last_name, r.preferred_name].filter(Boolean).map((s) => s!.toLowerCase());
const namePrefix =
  (...prefixes: string[]) =>
  (r: Row) =>
    prefixes.every((p) => words(r).some((w) => w.startsWith(p)));

async function allPages(query: string, pageSize = 200) {
  const ids: string[] = [];
  let total = -1;
  for (let page = 1; ; page++) {
    const r = await t.request("GET", `${P}?${query}&page=${page}&page_size=${pageSize}`, { token });
    expect(r.status).toBe(200);
    total = r.body.total;
    ids.push(...r.body.items.map((p: { id: string }) => p.id));
    if (r.body.items.length < pageSize) break;
  }
  return { ids, total };
}
async function firstPage(query: string) {
  const r = await t.request("GET", `${P}?${query}`, { token });
  expect(r.status).toBe(200);
  return { ids: r.body.items.map((p: { id: string }) => p.id) as string[], total: r.body.total as number };
}

describe(`${N} patients`, () => {
  test("the default list: total and every page, in order", async () => {
    const want = expected(() => true);
    expect(want.length).toBeGreaterThan(5_000);
    const got = await allPages("");
    expect(got.total).toBe(want.length);
    expect(got.ids).toEqual(want);
  });

  test.each([
    ["first_name", "desc"],
    ["date_of_birth", "asc"],
    ["date_of_birth", "desc"],
    ["chart_number", "asc"],
    ["created_at", "desc"],
    ["status", "asc"],
  ] as const)("sorted by %s %s: first page, a middle page and the total", async (by, dir) => {
    const want = expected(() => true, by, dir);
    const p1 = await firstPage(`sort_by=${by}&sort_dir=${dir}`);
    expect(p1).toEqual({ ids: want.slice(0, 50), total: want.length });
    const mid = await firstPage(`sort_by=${by}&sort_dir=${dir}&page=17&page_size=100`);
    expect(mid.ids).toEqual(want.slice(1600, 1700));
  });

  test.each([
    ["smi", namePrefix("smi")],
    ["Smith", namePrefix("smith")],
    ["j", namePrefix("j")],
    ["Mary Lee", namePrefix("mary", "lee")],
  ] as const)("name search %p: totals and all pages", async (term, match) => {
    const want = expected(match);
    expect(want.length).toBeGreaterThan(0);
    const got = await allPages(`search=${encodeURIComponent(term)}`, 100);
    expect(got).toEqual({ ids: want, total: want.length });
  });

  test('"Last, First" matches the last name and the first or preferred name', async () => {
    const want = expected(
      (r) => r.last_name.toLowerCase().startsWith("garc") && [r.first_name, r.preferred_name].some((n) => n?.toLowerCase().startsWith("ja")),
    );
    expect(want.length).toBeGreaterThan(0);
    expect(await allPages(`search=${encodeURIComponent("Garcia, Ja")}`)).toEqual({ ids: want, total: want.length });
  });

  test("phone, email, chart number and date of birth searches", async () => {
    const someone = rows.find((r, i) => i > 100 && r.status === "active" && r.mobile_phone && r.email && r.chart_number && r.date_of_birth)!;
    const digits = someone.mobile_phone!.replace(/\D/g, "");
    expect((await firstPage(`search=${encodeURIComponent(someone.mobile_phone!)}`)).ids).toEqual(
      expected((r) => r.mobile_phone?.replace(/\D/g, "") === digits),
    );
    expect((await firstPage(`search=${digits.slice(3)}`)).ids).toEqual(expected((r) => !!r.mobile_phone?.replace(/\D/g, "").includes(digits.slice(3))));
    expect((await firstPage(`search=${encodeURIComponent(someone.email!)}`)).ids).toEqual([someone.id]);
    expect((await firstPage(`search=${someone.chart_number!.toLowerCase()}`)).ids).toEqual([someone.id]);
    const [y, m, d] = someone.date_of_birth!.split("-");
    const sameDob = expected((r) => r.date_of_birth === someone.date_of_birth);
    expect(sameDob).toContain(someone.id);
    expect((await firstPage(`search=${someone.date_of_birth}`)).ids).toEqual(sameDob);
    expect((await firstPage(`search=${encodeURIComponent(`${m}/${d}/${y}`)}`)).ids).toEqual(sameDob);
  });

  test("a search matching nearly everyone (every phone has 555) pages like the list", async () => {
    const want = expected((r) => !!r.mobile_phone);
    expect(want.length).toBeGreaterThan(5_000);
    const p1 = await firstPage("search=555");
    expect(p1).toEqual({ ids: want.slice(0, 50), total: want.length });
    const p40 = await firstPage("search=555&page=40&page_size=100");
    expect(p40.ids).toEqual(want.slice(3900, 4000));
  });

  test("filters, alone and combined, with the archived and status rules", async () => {
    const cases: [string, (r: Row) => boolean, string?][] = [
      [`location_uuid=${locA}`, (r) => r.location_id === locA],
      [`location_uuid=${locB}`, (r) => r.location_id === locB],
      [`location_uuid=${locA}&status=inactive`, (r) => r.location_id === locA, "inactive"],
      [`primary_provider_uuid=${prov1}`, (r) => r.primary_provider_id === prov1],
      [`tag_definition_uuid=${tag}`, (r) => r.tagged],
      [`tag_definition_uuid=${tag}&status=archived`, (r) => r.tagged, "archived"],
      ["dob_from=1960-01-01&dob_to=1969-12-31", (r) => !!r.date_of_birth && r.date_of_birth >= "1960-01-01" && r.date_of_birth <= "1969-12-31"],
      ["dob_from=1941-01-01", (r) => !!r.date_of_birth && r.date_of_birth >= "1941-01-01"],
      [
        `dob_from=1950-01-01&location_uuid=${locA}&primary_provider_uuid=${prov1}`,
        (r) => !!r.date_of_birth && r.date_of_birth >= "1950-01-01" && r.location_id === locA && r.primary_provider_id === prov1,
      ],
      [`search=smi&location_uuid=${locA}`, (r) => namePrefix("smi")(r) && r.location_id === locA],
      [`search=j&tag_definition_uuid=${tag}&status=active`, (r) => namePrefix("j")(r) && r.tagged, "active"],
      ["status=archived", () => true, "archived"],
      ["status=prospective", () => true, "prospective"],
    ];
    for (const [query, filter, status] of cases) {
      const want = expected(filter, "last_name", "asc", status);
      const got = await firstPage(`${query}&page_size=200`);
      expect({ query, total: got.total, ids: got.ids }).toEqual({ query, total: want.length, ids: want.slice(0, 200) });
    }
    const big = expected((r) => r.location_id === locA);
    expect(big.length).toBeGreaterThan(5_000);
    expect((await firstPage(`location_uuid=${locA}&page=28&page_size=200`)).ids).toEqual(big.slice(5400, 5600));
  });

  test("name searches sorted every way (the prepared search statement per shape): all pages, nulls in order", async () => {
    for (const [by, dir] of [
      ["first_name", "desc"],
      ["date_of_birth", "asc"],
      ["date_of_birth", "desc"],
      ["chart_number", "desc"],
      ["created_at", "asc"],
      ["status", "desc"],
    ] as const) {
      for (const term of ["smi", "Mary Lee", "mar"]) {
        const words = term.toLowerCase().split(" ");
        const want = expected(namePrefix(...words), by, dir);
        expect(want.length).toBeGreaterThan(0);
        const got = await allPages(`search=${encodeURIComponent(term)}&sort_by=${by}&sort_dir=${dir}`, 37);
        expect({ term, by, dir, ...got }).toEqual({ term, by, dir, ids: want, total: want.length });
      }
    }
  });

  test("one search shape, many values: terms, filters, statuses and page sizes do not leak between requests", async () => {
    const cases: [string, (r: Row) => boolean, string?][] = [
      [`search=smi&location_uuid=${locA}`, (r) => namePrefix("smi")(r) && r.location_id === locA],
      [`search=smi&location_uuid=${locB}`, (r) => namePrefix("smi")(r) && r.location_id === locB],
      [`search=gar&location_uuid=${locB}`, (r) => namePrefix("gar")(r) && r.location_id === locB],
      ["search=gar&status=inactive", namePrefix("gar"), "inactive"],
      ["search=gar&status=archived", namePrefix("gar"), "archived"],
      ["search=wil&status=inactive", namePrefix("wil"), "inactive"],
      [
        `search=mar&primary_provider_uuid=${prov1}&dob_from=1960-01-01`,
        (r) => namePrefix("mar")(r) && r.primary_provider_id === prov1 && !!r.date_of_birth && r.date_of_birth >= "1960-01-01",
      ],
      [
        `search=jo&tag_definition_uuid=${tag}&dob_to=1970-12-31`,
        (r) => namePrefix("jo")(r) && r.tagged && !!r.date_of_birth && r.date_of_birth <= "1970-12-31",
      ],
      [
        `search=li&tag_definition_uuid=${tag}&dob_to=1990-12-31`,
        (r) => namePrefix("li")(r) && r.tagged && !!r.date_of_birth && r.date_of_birth <= "1990-12-31",
      ],
    ];
    for (const size of [7, 200]) {
      for (const [query, filter, status] of cases) {
        const want = expected(filter, "last_name", "asc", status);
        const got = await allPages(query, size);
        expect({ query, size, ...got }).toEqual({ query, size, ids: want, total: want.length });
      }
    }
  });

  test("a search page past the end keeps the right total, with and without other filters", async () => {
    for (const [query, filter, status] of [
      ["search=smi", namePrefix("smi")],
      [`search=smi&location_uuid=${locA}`, (r: Row) => namePrefix("smi")(r) && r.location_id === locA],
      ["search=smi&status=inactive", namePrefix("smi"), "inactive"],
      ["search=zzzz", () => false],
    ] as [string, (r: Row) => boolean, string?][]) {
      const want = expected(filter, "last_name", "asc", status);
      expect({ query, ...(await firstPage(`${query}&page=50&page_size=100`)) }).toEqual({ query, ids: [], total: want.length });
    }
  });

  test("a page past the end is empty with the right total, in both strategies", async () => {
    const all = expected(() => true);
    expect(await firstPage("page=100&page_size=200")).toEqual({ ids: [], total: all.length });
    const smi = expected(namePrefix("smi"));
    expect(await firstPage("search=smi&page=100&page_size=200")).toEqual({ ids: [], total: smi.length });
  });
});
