// How the records other records point at are named in references. A domain
// with a kind of its own (e.g. a referral source) declares it with nameSource
// next to its resource; these are the kinds many domains refer to.
import { appointments } from "@db/tenant/appointments";
import { locations, operatories, providers } from "@db/tenant/practice";
import { patients } from "@db/tenant/patients";
import { definitions } from "@db/tenant/definitions";
import { explosionCodes } from "@db/tenant/codes";
import { feeSchedules } from "@db/tenant/fee-schedules";
import { nameSource, personName } from "./refs";

/** Providers and patients: "First Last". */
export const PROVIDER_NAMES = nameSource(providers.id, { first_name: providers.first_name, last_name: providers.last_name }, personName);
export const PATIENT_NAMES = nameSource(patients.id, { first_name: patients.first_name, last_name: patients.last_name }, personName);
export const LOCATION_NAMES = nameSource(locations.id, { name: locations.name }, (r) => r.name);
export const OPERATORY_NAMES = nameSource(operatories.id, { name: operatories.name }, (r) => r.name);
/** Definitions (configurable list items) by item_name. */
export const DEFINITION_NAMES = nameSource(definitions.id, { item_name: definitions.item_name }, (r) => r.item_name);
/** An appointment is named by its scheduled start (location wall clock). */
export const APPOINTMENT_NAMES = nameSource(appointments.id, { scheduled_start: appointments.scheduled_start }, (r) => r.scheduled_start);
export const EXPLOSION_CODE_NAMES = nameSource(explosionCodes.id, { name: explosionCodes.name }, (r) => r.name);
/** Fee schedules by name. */
export const FEE_SCHEDULE_NAMES = nameSource(feeSchedules.id, { name: feeSchedules.name }, (r) => r.name);
