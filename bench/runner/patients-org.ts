// The patients org, built once on the Cusp server for the rows that ask for it
// (RowFamily.patientsOrg): a location, and as needed the booking calendar's
// chairs and appointment types, and the 100,000 patients written straight
// into its SQLite file (bench/patients.ts).

import { type LoadedPatient, loadPatients, searchTerms } from "@bench/patients";
import { api, createOrg, orgDbFile } from "./api";
import { fmtInt } from "./format";
import type { Server } from "./servers";
import { PATIENTS, SEARCH_PAGE_SIZE } from "./settings";

// The booking calendar: chairs (a provider with an operatory of its own), each
// booked in 30-minute slots from 08:00 to 17:00, day after day from DAY0.
export const CHAIRS = 20;
export const DAY0 = "2031-01-06";
export const SLOT_MINUTES = 30;
export const DAY_START_MINUTE = 8 * 60;
export const SLOTS_PER_DAY = 18;
export const APPOINTMENT_TYPE_CODE = "D1110";

export type PatientsOrg = {
  id: string;
  dbFile: string;
  location: { id: string };
  typeCode: string;
  chairs: { provider_uuid: string; operatory_uuid: string }[];
  patients: LoadedPatient[];
  loadMs: number;
  apiPatient: any;
  /** 5,000 name-prefix search terms of the loaded patients (none without them). */
  terms: string[];
  /** The booking rows so far: the next free slot, and the appointments created (the double-booking check counts them). */
  calendar: { nextSlot: number; created: number };
};

/** What the selected rows need: the chairs and appointment types (booking rows), the patients. */
export type PatientsOrgNeeds = { chairs: boolean; patients: boolean };

/**
 * Builds the org through the API (the location always), loads the patients,
 * and checks that the service sees them: by id, through the name index, and
 * the list total.
 */
export async function buildPatientsOrg(server: Server, token: string, dataDir: string, need: PatientsOrgNeeds): Promise<PatientsOrg> {
  if (need.patients) console.log(`loading ${fmtInt(PATIENTS)} patients into one org (bun:sqlite, one transaction)`);
  else console.log("the patients org without patients: (b), (c) and (d) do not run");
  const org = await buildOrg(server.base, token, dataDir, need);
  if (!need.patients) return org;
  console.log(`  ${fmtInt(org.patients.length)} patients in ${(org.loadMs / 1000).toFixed(1)} s -> ${org.dbFile}`);
  const P = `/api/v1/${org.id}`;
  const probe = org.patients[org.patients.length - 1]!;
  const got = await api(server.base, "GET", `${P}/patients/${probe.id}`, undefined, token);
  if (got.id !== probe.id || got.last_name !== probe.last_name) throw new Error(`GET ${P}/patients/${probe.id} answered ${JSON.stringify(got).slice(0, 300)}`);
  const found = await api(server.base, "GET", `${P}/patients?search=${encodeURIComponent(org.terms[0]!)}&page_size=${SEARCH_PAGE_SIZE}`, undefined, token);
  if (!found.items?.length) throw new Error(`search for ${org.terms[0]} found nobody`);
  const everyone = await api(server.base, "GET", `${P}/patients?page_size=1`, undefined, token);
  console.log(`  the service sees ${fmtInt(everyone.total)} patients; "${org.terms[0]}" finds ${found.total}`);
  return org;
}

async function buildOrg(base: string, token: string, dataDir: string, need: PatientsOrgNeeds): Promise<PatientsOrg> {
  const id = await createOrg(base, token, "patients");
  const P = `/api/v1/${id}`;
  const location = await api(base, "POST", `${P}/locations`, { name: "Downtown Dental", timezone: "America/Chicago", city: "Chicago", country: "US" }, token);
  const chairs: PatientsOrg["chairs"] = [];
  for (let i = 1; i <= (need.chairs ? CHAIRS : 0); i++) {
    const provider = await api(base, "POST", `${P}/providers`, { abbreviation: `DR${i}`, first_name: `Pat${i}`, last_name: `Provider${i}` }, token);
    const operatory = await api(base, "POST", `${P}/schedule/operatories`, { location_uuid: location.id, name: `Chair ${i}` }, token);
    chairs.push({ provider_uuid: provider.id, operatory_uuid: operatory.id });
  }
  for (const [code, name, duration_minutes, color] of !need.chairs
    ? []
    : ([
        [APPOINTMENT_TYPE_CODE, "Adult prophylaxis", 30, "#2E86DE"],
        ["D0150", "Comprehensive exam", 30, "#10AC84"],
        ["D2391", "Composite filling", 60, "#EE5253"],
      ] as const)) {
    await api(base, "POST", `${P}/appointment-types`, { code, name, duration_minutes, color }, token);
  }
  const dbFile = orgDbFile(dataDir, id);
  const org = { id, dbFile, location, typeCode: APPOINTMENT_TYPE_CODE, chairs, calendar: { nextSlot: 0, created: 0 } };
  if (!need.patients) return { ...org, patients: [], loadMs: 0, apiPatient: null, terms: [] };
  // One patient through the API: proves the endpoint works and gives a row written by the service itself.
  const apiPatient = await api(
    base,
    "POST",
    `${P}/patients`,
    { first_name: "Api", last_name: "Created", date_of_birth: "1980-05-17", mobile_phone: "+1 312 555 0199", email: "api.created@example.com" },
    token,
  );
  const home = await api(base, "POST", `${P}/providers`, { abbreviation: "HOME", first_name: "Hana", last_name: "Home" }, token);
  const { patients, ms } = loadPatients(dbFile, PATIENTS, undefined, { location_id: location.id, primary_provider_id: home.id });
  return { ...org, patients, loadMs: ms, apiPatient, terms: searchTerms(patients, 5_000) };
}
