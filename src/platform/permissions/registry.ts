// The permission registry: every key a route may declare, in one list.
// Changing the set of keys means bumping REGISTRY_VERSION; a test pins the
// pair so clients can trust the version to detect a changed registry.

export type PermissionDef = { key: string; description: string; scope: "org" | "platform"; contains_phi: boolean };

const org = <K extends string>(key: K, description: string, contains_phi = false) => ({ key, description, scope: "org" as const, contains_phi });
const platform = <K extends string>(key: K, description: string) => ({ key, description, scope: "platform" as const, contains_phi: false });

export const PERMISSIONS = [
  org("locations.read", "Read locations"),
  org("locations.write", "Create, update and archive locations"),
  org("iam.users.read", "List and read the org's users"),
  org("iam.users.write", "Invite, update, suspend and remove the org's users"),
  org("iam.groups.read", "List and read permission groups and the permission registry"),
  org("iam.groups.write", "Create and update permission groups"),
  org("providers.read", "Read providers"),
  org("providers.write", "Create, update and archive providers"),
  org("patients.read", "Search and read patient records", true),
  org("patients.write", "Create, update, archive and restore patient records", true),
  org("patients.medical.read", "Read a patient's alerts, allergies, diseases and medications", true),
  org("patients.medical.write", "Record and change a patient's alerts, allergies, diseases and medications", true),
  org("patients.communications.read", "Read a patient's communication log", true),
  org("patients.communications.write", "Add entries to a patient's communication log", true),
  org("patients.settings.write", "Manage patient tag definitions and custom field definitions"),
  org("billing.ledger.read", "Read patient ledger entries (charges, payments, adjustments)", true),
  org("billing.ledger.write", "Post patient ledger entries", true),
  org("referrals.read", "Read referral partners and referral sources"),
  org("referrals.write", "Create, update and archive referral partners and referral sources"),
  org("providers.credentials.read", "Read provider identities, location overrides (licences, DEA) and prescription access"),
  org("providers.credentials.write", "Add provider identities, location overrides and prescription access"),
  org("codes.read", "Read procedure codes, ICD codes, explosion codes, and fee schedules with their fees"),
  org("codes.write", "Create, update and archive procedure codes, explosion codes and fee schedules; set, copy and delete fees"),
  org("definitions.read", "Read the org's definitions (configurable lists)"),
  org("definitions.write", "Create, update, reorder and archive definitions"),
  org("odontogram.read", "Read odontogram configuration: auto-codes, hotkeys, interaction modes, macros"),
  org("odontogram.write", "Change odontogram configuration: auto-codes, hotkeys, interaction modes, macros"),
  org("clinical.read", "Read the dental chart: tooth statuses, charted procedures, treatment plans, spans, conditions, perio, chart history", true),
  org("clinical.write", "Chart: tooth statuses, procedures, treatment plans, spans, conditions, perio exams", true),
  org("clinical.notes.read", "Read clinical notes and auto-note rules", true),
  org("clinical.notes.write", "Write clinical notes and addendums; manage auto-note rules", true),
  org("clinical.notes.sign", "Sign clinical notes (a signed note only takes addendums)", true),
  org("schedule.read", "Read operatories, appointment types and appointment rules"),
  org("schedule.write", "Manage operatories, appointment types and appointment rules"),
  org("schedule.appointments.read", "Read appointments", true),
  org("schedule.appointments.write", "Book, reschedule and change the status of appointments", true),
  org("recall.read", "Read recall types, patients' recalls and the recall list", true),
  org("recall.write", "Manage recall types; add, change and remove patients' recalls", true),
  org("insurance.read", "Read carriers, coverage categories, plans, subscriptions, patient plans, estimate books and insurance drafts", true),
  org("insurance.write", "Manage carriers, coverage categories, plans, subscriptions, patient plans, estimate books; import and review insurance drafts", true),
  org("insurance.estimates.write", "Estimate treatment plans, override and delete procedure estimates", true),
  org("insurance.claims.read", "Read claims and pre-authorizations, claim batches and their 837D files, ERAs and claim payments", true),
  org("insurance.claims.write", "Create, change and move claims and pre-authorizations; send them in 837D batches; import ERAs", true),
  org("insurance.payments.post", "Post claim payments (ERAs and paper EOBs) to claims and patients' ledgers, and void them", true),
  org("documents.read", "Read documents, their versions, links, signatures, processing status and categories; download them", true),
  org("documents.write", "Upload documents and new versions; change, star, lock, link and archive documents", true),
  org("documents.sign", "Request signatures on documents and record them", true),
  org("documents.manage", "Manage document categories and legal holds"),
  org("revenue.read", "Read smart lists and the filter-field registry; count and run patient filters", true),
  org("revenue.write", "Create, change, pin and archive smart lists and their members", true),
  org("audit.read", "Read the org's audit trail", true),
  org("events.stream", "Receive the org's event stream"),
  platform("platform.admins.list", "List platform administrators"),
  platform("platform.admins.read", "Read a platform administrator"),
  platform("platform.admins.create", "Grant platform access"),
  platform("platform.admins.update", "Change platform administrators and their groups"),
  platform("platform.admins.revoke", "Revoke platform access"),
  platform("platform.orgs.list", "List organizations"),
  platform("platform.orgs.manage", "Create, update and archive organizations"),
  platform("platform.shards.manage", "Create and inspect database shards"),
  platform("platform.audit.read", "Read the platform audit log"),
  platform("platform.audit.export", "Export the platform audit log"),
] as const satisfies readonly PermissionDef[];

export const REGISTRY_VERSION = 10;

export type PermissionKey = (typeof PERMISSIONS)[number]["key"];
export type OrgPermissionKey = Extract<(typeof PERMISSIONS)[number], { scope: "org" }>["key"];
export type PlatformPermissionKey = Extract<(typeof PERMISSIONS)[number], { scope: "platform" }>["key"];

export const ORG_PERMISSION_KEYS: string[] = PERMISSIONS.filter((p) => p.scope === "org").map((p) => p.key);
export const PLATFORM_PERMISSION_KEYS: string[] = PERMISSIONS.filter((p) => p.scope === "platform").map((p) => p.key);
const ALL = new Set<string>(PERMISSIONS.map((p) => p.key));
export const isPermissionKey = (k: string): k is PermissionKey => ALL.has(k);
