import { auditEntries } from "./audit";
import { locations, operatories, providers } from "./practice";
import { patients, patientTags, tagDefinitions } from "./patients";
import { appointmentRules, appointments, appointmentTypes } from "./appointments";

// The tables the org database's drizzle handle is typed with (Db<TenantSchema>).
// Only the type matters: queries are built from the table objects of each
// db/tenant/<domain>.ts; drizzle-kit reads every file here for migrations.

export const tenantSchema = {
  auditEntries,
  locations,
  providers,
  operatories,
  patients,
  tagDefinitions,
  patientTags,
  appointmentTypes,
  appointmentRules,
  appointments,
};
export type TenantSchema = typeof tenantSchema;
