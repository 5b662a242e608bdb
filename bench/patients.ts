// The patient data set of `bun run bench`: 100,000 patients written straight into
// the org's SQLite file (bun:sqlite, one transaction, one prepared INSERT). Going
// through the API would take minutes; the patients_fts triggers of migration
// 0002 index every name as the row is inserted, and WAL lets the running service
// read the rows as soon as the transaction commits.
//
// Names: 120 first names × 250 last names, drawn uniformly with a seeded
// generator, so a first+last pair is shared by about 3 patients and a last name
// by about 400: the mix a search box sees in a large practice group.

import { Database } from "bun:sqlite";

export const FIRST_NAMES = [
  "James",
  "Mary",
  "Robert",
  "Patricia",
  "John",
  "Jennifer",
  "Michael",
  "Linda",
  "David",
  "Elizabeth",
  "William",
  "Barbara",
  "Richard",
  "Susan",
  "Joseph",
  "Jessica",
  "Thomas",
  "Sarah",
  "Christopher",
  "Karen",
  "Charles",
  "Lisa",
  "Daniel",
  "Nancy",
  "Matthew",
  "Betty",
  "Anthony",
  "Margaret",
  "Mark",
  "Sandra",
  "Donald",
  "Ashley",
  "Steven",
  "Kimberly",
  "Paul",
  "Emily",
  "Andrew",
  "Donna",
  "Joshua",
  "Michelle",
  "Kenneth",
  "Carol",
  "Kevin",
  "Amanda",
  "Brian",
  "Dorothy",
  "George",
  "Melissa",
  "Timothy",
  "Deborah",
  "Ronald",
  "Stephanie",
  "Edward",
  "Rebecca",
  "Jason",
  "Sharon",
  "Jeffrey",
  "Laura",
  "Ryan",
  "Cynthia",
  "Jacob",
  "Kathleen",
  "Gary",
  "Amy",
  "Nicholas",
  "Angela",
  "Eric",
  "Shirley",
  "Jonathan",
  "Anna",
  "Stephen",
  "Brenda",
  "Larry",
  "Pamela",
  "Justin",
  "Emma",
  "Scott",
  "Nicole",
  "Brandon",
  "Helen",
  "Benjamin",
  "Samantha",
  "Samuel",
  "Katherine",
  "Gregory",
  "Christine",
  "Alexander",
  "Debra",
  "Frank",
  "Rachel",
  "Patrick",
  "Carolyn",
  "Raymond",
  "Janet",
  "Jack",
  "Catherine",
  "Dennis",
  "Maria",
  "Jerry",
  "Heather",
  "Tyler",
  "Diane",
  "Aaron",
  "Ruth",
  "Jose",
  "Julie",
  "Adam",
  "Olivia",
  "Nathan",
  "Joyce",
  "Henry",
  "Virginia",
  "Douglas",
  "Victoria",
  "Zachary",
  "Kelly",
  "Peter",
  "Lauren",
  "Kyle",
  "Christina",
];

export const LAST_NAMES = [
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
  "Robinson",
  "Walker",
  "Young",
  "Allen",
  "King",
  "Wright",
  "Scott",
  "Torres",
  "Nguyen",
  "Hill",
  "Flores",
  "Green",
  "Adams",
  "Nelson",
  "Baker",
  "Hall",
  "Rivera",
  "Campbell",
  "Mitchell",
  "Carter",
  "Roberts",
  "Gomez",
  "Phillips",
  "Evans",
  "Turner",
  "Diaz",
  "Parker",
  "Cruz",
  "Edwards",
  "Collins",
  "Reyes",
  "Stewart",
  "Morris",
  "Morales",
  "Murphy",
  "Cook",
  "Rogers",
  "Gutierrez",
  "Ortiz",
  "Morgan",
  "Cooper",
  "Peterson",
  "Bailey",
  "Reed",
  "Kelly",
  "Howard",
  "Ramos",
  "Kim",
  "Cox",
  "Ward",
  "Richardson",
  "Watson",
  "Brooks",
  "Chavez",
  "Wood",
  "James",
  "Bennett",
  "Gray",
  "Mendoza",
  "Ruiz",
  "Hughes",
  "Price",
  "Alvarez",
  "Castillo",
  "Sanders",
  "Patel",
  "Myers",
  "Long",
  "Ross",
  "Foster",
  "Jimenez",
  "Powell",
  "Jenkins",
  "Perry",
  "Russell",
  "Sullivan",
  "Bell",
  "Coleman",
  "Butler",
  "Henderson",
  "Barnes",
  "Gonzales",
  "Fisher",
  "Vasquez",
  "Simmons",
  "Romero",
  "Jordan",
  "Patterson",
  "Alexander",
  "Hamilton",
  "Graham",
  "Reynolds",
  "Griffin",
  "Wallace",
  "Moreno",
  "West",
  "Cole",
  "Hayes",
  "Bryant",
  "Herrera",
  "Gibson",
  "Ellis",
  "Tran",
  "Medina",
  "Aguilar",
  "Stevens",
  "Murray",
  "Ford",
  "Castro",
  "Marshall",
  "Owens",
  "Harrison",
  "Fernandez",
  "McDonald",
  "Woods",
  "Washington",
  "Kennedy",
  "Wells",
  "Vargas",
  "Henry",
  "Chen",
  "Freeman",
  "Webb",
  "Tucker",
  "Guzman",
  "Burns",
  "Crawford",
  "Olson",
  "Simpson",
  "Porter",
  "Hunter",
  "Gordon",
  "Mendez",
  "Silva",
  "Shaw",
  "Snyder",
  "Mason",
  "Dixon",
  "Munoz",
  "Hunt",
  "Hicks",
  "Holmes",
  "Palmer",
  "Wagner",
  "Black",
  "Robertson",
  "Boyd",
  "Rose",
  "Stone",
  "Salazar",
  "Fox",
  "Warren",
  "Mills",
  "Meyer",
  "Rice",
  "Schmidt",
  "Garza",
  "Daniels",
  "Ferguson",
  "Nichols",
  "Stephens",
  "Soto",
  "Weaver",
  "Ryan",
  "Gardner",
  "Payne",
  "Grant",
  "Dunn",
  "Kelley",
  "Spencer",
  "Hawkins",
  "Arnold",
  "Pierce",
  "Vazquez",
  "Hansen",
  "Peters",
  "Santos",
  "Hart",
  "Bradley",
  "Knight",
  "Elliott",
  "Cunningham",
  "Duncan",
  "Armstrong",
  "Hudson",
  "Carroll",
  "Lane",
  "Riley",
  "Andrews",
  "Alvarado",
  "Ray",
  "Delgado",
  "Berry",
  "Perkins",
  "Hoffman",
  "Johnston",
  "Matthews",
  "Pena",
  "Richards",
  "Contreras",
  "Willis",
  "Carpenter",
  "Lawrence",
  "Sandoval",
  "Guerrero",
  "George",
  "Chapman",
  "Rios",
  "Estrada",
  "Ortega",
  "Watkins",
  "Greene",
  "Nunez",
  "Wheeler",
  "Valdez",
  "Harper",
  "Burke",
  "Larson",
  "Santiago",
  "Maldonado",
  "Morrison",
  "Franklin",
  "Carlson",
  "Austin",
  "Dominguez",
  "Carr",
  "Lawson",
  "Jacobs",
];

/** A small seeded generator (mulberry32): the same data set on every run. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type LoadedPatient = { id: string; first_name: string; last_name: string };

/**
 * Inserts `count` active patients into the org database at `file` in one
 * transaction and returns them (ids and names). The FTS triggers run inside the
 * same transaction, so the search index is complete when it commits.
 */
/** Every patient's home location and primary provider (as a practice records them; they also make the rows as wide as real ones). */
export type Homes = { location_id: string; primary_provider_id: string };

export function loadPatients(file: string, count: number, seed = 42, homes?: Homes): { patients: LoadedPatient[]; ms: number } {
  const t0 = performance.now();
  const random = rng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
  const db = new Database(file);
  db.exec("PRAGMA busy_timeout = 10000");
  db.exec("PRAGMA journal_mode = WAL");
  const hasFts = db.query("SELECT count(*) AS n FROM sqlite_master WHERE type = 'trigger' AND name = 'patients_fts_ai'").get() as { n: number };
  if (!hasFts.n) throw new Error(`${file}: the patients_fts triggers (migration 0002) are missing; the search index would stay empty`);
  const insert = db.prepare(
    `INSERT INTO patients (id, first_name, last_name, date_of_birth, phone_digits, mobile_phone, email, chart_number, status,
       receives_email, receives_sms, allergy_review_status, consent_flags, premedication_required,
       balance_0_30_cents, balance_31_60_cents, balance_61_90_cents, balance_over_90_cents, estimated_balance_cents, insurance_estimate_cents, payment_plan_due_cents,
       created_at, updated_at, version, location_id, primary_provider_id)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'active', 0, 0, 'not_reviewed', 0, 0, 0, 0, 0, 0, 0, 0, 0, ?9, ?9, 1, ?10, ?11)`,
  );
  const out: LoadedPatient[] = new Array(count);
  const now = new Date().toISOString();
  const tx = db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const first = pick(FIRST_NAMES);
      const last = pick(LAST_NAMES);
      const id = Bun.randomUUIDv7();
      const y = 1940 + Math.floor(random() * 70);
      const m = 1 + Math.floor(random() * 12);
      const d = 1 + Math.floor(random() * 28);
      const dob = `${y}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`;
      const line = String(1_000_000 + i).slice(1); // 7 digits, unique
      const mobile = `+1 312 ${line.slice(0, 3)} ${line.slice(3)}`;
      const digits = `1312${line} 312${line}`; // as phoneDigits() stores a +1 number
      const email = `${first}.${last}.${i}@example.com`.toLowerCase();
      insert.run(
        id,
        first,
        last,
        dob,
        digits,
        mobile,
        email,
        `B${String(i + 1).padStart(6, "0")}`,
        now,
        homes?.location_id ?? null,
        homes?.primary_provider_id ?? null,
      );
      out[i] = { id, first_name: first, last_name: last };
    }
  });
  tx();
  // Fold the WAL into the main file so the service does not read through a
  // hundred-megabyte WAL; an org that grew over months would have been checkpointed.
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.close();
  return { patients: out, ms: performance.now() - t0 };
}

/**
 * Search terms as a front desk types them into the booking pipeline's search:
 * the first three letters of the first name and the first four of the last
 * ("Mar Garc"), taken from real patients so every term finds someone.
 */
export function searchTerms(patients: LoadedPatient[], count: number, seed = 7): string[] {
  const random = rng(seed);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const p = patients[Math.floor(random() * patients.length)]!;
    out.push(`${p.first_name.slice(0, 3)} ${p.last_name.slice(0, 4)}`);
  }
  return out;
}

/**
 * What a receptionist types to find `count` patients (row c2): from the third
 * letter of the first name, then a space and the last name letter by letter
 * ("mar", "mar ", "mar g", "mar ga", ... "mar garcia"); every keystroke a search.
 */
export function keystrokeTerms(patients: LoadedPatient[], count: number, seed = 13): string[] {
  const out: string[] = [];
  for (const p of sample(patients, count, seed)) {
    const typed = `${p.first_name.slice(0, 3).toLowerCase()} ${p.last_name.toLowerCase()}`;
    for (let n = 3; n <= typed.length; n++) out.push(typed.slice(0, n));
  }
  return out;
}

/** `n` distinct items of `xs`, in random order. */
export function sample<T>(xs: readonly T[], n: number, seed = 11): T[] {
  const random = rng(seed);
  const copy = xs.slice();
  const k = Math.min(n, copy.length);
  for (let i = 0; i < k; i++) {
    const j = i + Math.floor(random() * (copy.length - i));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy.slice(0, k);
}
