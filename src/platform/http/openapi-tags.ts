/**
 * The OpenAPI document's top-level tags, in the order the reference shows
 * them: one per area of the API, each with a one-line description. Every tag a
 * route names must be here (tests/platform/openapi-lint.test.ts).
 */
export const OPENAPI_TAGS: { name: string; description: string }[] = [
  { name: "System", description: "Liveness and readiness probes, the org's server-sent event stream and signed local file downloads." },
  { name: "Auth", description: "Log in, refresh and log out; invitations, password and email verification for the calling user." },
  { name: "Admin", description: "Platform operations on organizations, database shards and partners (platform keys)." },
  { name: "Internal", description: "Service-to-service routes for service accounts and the signed identity webhook." },
  { name: "Platform audit", description: "The audit log of every organization, searched and exported by platform administrators." },
  { name: "Platform administration", description: "Platform administrators, platform permission groups and the organizations they reach." },
  { name: "IAM", description: "An org's members, permission groups, scoped assignments, approvals and effective permissions." },
  { name: "Locations", description: "An org's practices (locations), each in its own IANA time zone." },
  { name: "Providers", description: "Dentists and hygienists: records, payer identities, per-location licences and eRx access." },
  { name: "Patients", description: "Patient records, status transitions, archive and restore, relationships, family and communication logs." },
  { name: "Medical history", description: "A patient's alerts, allergies, diseases and problems, and medications." },
  { name: "Custom fields", description: "Org-defined patient fields and each patient's values." },
  { name: "Tags", description: "Tag definitions and the tags on patients." },
  { name: "Patient ledger", description: "A patient's ledger entries, from which the aged balances and the scheduling restriction derive." },
  {
    name: "Scheduling",
    description:
      "Operatories, provider hours and overrides, blockouts, schedule notes, views, preferences, production goals, calendars and availability search.",
  },
  { name: "Appointment types", description: "Kinds of appointment with their duration, colour and default fee." },
  { name: "Appointment rules", description: "Which pairs of appointment types may overlap, per location or org-wide." },
  {
    name: "Appointments",
    description: "The booking pipeline: book, reschedule, change status and the front-desk steps (confirmation, check-in, seat, dismiss).",
  },
  { name: "Definitions", description: "The org's configurable short lists (blockout types, confirmation statuses, ...), by category and order." },
  { name: "Codes", description: "Procedure codes, ICD-10-CM codes and explosion codes." },
  { name: "Odontogram auto-codes", description: "Auto-code families and rules that pick the procedure code from the tooth, surfaces and clinical context." },
  { name: "Odontogram configuration", description: "What the charting UI reads: hotkeys, interaction modes and macros." },
  { name: "Clinical", description: "The tooth chart (tooth statuses, seeding, transitions, indicators) and periodontal exams." },
  { name: "Clinical notes", description: "Clinical notes (append-only once signed, with addendums), note templates and auto-note rules." },
  { name: "Clinical: conditions", description: "Conditions recorded on a patient's teeth." },
  { name: "Clinical: chart history", description: "The chart as it stood at a date, and its timeline (read-only)." },
  { name: "Clinical charting", description: "Charted procedures, treatment plans and their phases, and spans." },
  { name: "Referrals", description: "Referral partners and sources, and each patient's referral attributions." },
  {
    name: "Insurance",
    description: "Carriers, plans, subscriptions, patient plans and benefits, coverage categories, estimate books, plan imports (drafts) and estimates.",
  },
  { name: "Documents", description: "Upload and processing (virus scan, OCR, classification), versions, categories, links, signatures and downloads." },
  { name: "Revenue", description: "The revenue filter-field registry, filter count and execute, and saved smart lists with their members and actions." },
];
