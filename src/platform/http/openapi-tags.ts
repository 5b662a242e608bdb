/**
 * The OpenAPI document's top-level tags, in the order the reference shows
 * them: one per area of the API, each describing the area's domain in a sentence
 * or two (the reference shows it above the area's operations). Every tag a
 * route names must be here (tests/platform/openapi-lint.test.ts); each says more
 * than its name (tests/platform/openapi-introduction.test.ts).
 */
export const OPENAPI_TAGS: { name: string; description: string }[] = [
  {
    name: "System",
    description:
      "Liveness and readiness probes for load balancers, the org's server-sent stream of domain events, and downloads through signed links to documents kept on local storage.",
  },
  {
    name: "Auth",
    description:
      "Signing in: log in with email and password, rotate a refresh token, log out; the caller's organizations; accepting an invitation; changing or resetting a password and verifying an email address.",
  },
  {
    name: "Admin",
    description:
      "Platform operations under platform keys: organizations (create, change, archive, move to another shard, delete), the database shards that hold them, and partners.",
  },
  {
    name: "Internal",
    description:
      "Service-to-service routes: organizations as other services see them, for service accounts holding a platform key, and the identity service's signed user-sync webhook (where one is configured).",
  },
  {
    name: "Platform audit",
    description:
      "The audit trail of every organization as platform administrators see it: search and filter the index, counts, resource types, CSV export, and one entry with its before/after snapshots read from the organization's own database.",
  },
  {
    name: "Platform administration",
    description:
      "Who runs the platform: platform administrators and their group assignments, platform permission groups, and the organizations a platform administrator can reach.",
  },
  {
    name: "IAM",
    description:
      "Who may do what in an org: members and invitations, permission groups, assignments scoped to the org, a location or a provider, approvals for access to health information, and effective permissions with the grants behind them.",
  },
  {
    name: "Locations",
    description:
      "An org's practices (locations): name, address, contact details and the IANA time zone in which the location's appointments, blockouts and working hours are written.",
  },
  {
    name: "Providers",
    description:
      "Dentists, hygienists and the other providers of an org: their records and counts by status, payer identities, per-location licences and eRx access.",
  },
  {
    name: "Patients",
    description:
      "The patient record: search and duplicate candidates, status transitions, archive and restore, relationships and family, and the append-only communication log.",
  },
  {
    name: "Medical history",
    description:
      "A patient's alerts, allergies, diseases and problems, and medications, each archived rather than deleted; a new medication is checked against the patient's active allergies.",
  },
  {
    name: "Custom fields",
    description: "Patient fields an org defines for itself (text, number, date, yes/no or pick list, optionally required) and each patient's values for them.",
  },
  {
    name: "Tags",
    description: "Tag definitions an org keeps (name, colour, description) and the tags put on each patient; the patient list can be filtered by a tag.",
  },
  {
    name: "Patient ledger",
    description:
      "A patient's append-only ledger of charges, payments and adjustments, from which the aged balances on the patient record and the scheduling restriction derive.",
  },
  {
    name: "Payments",
    description:
      "Payments taken from patients, split to providers and procedures (or kept as a prepayment), the day's deposit list with totals by type, voids and refunds; every amount is a ledger entry.",
  },
  {
    name: "Claims",
    description:
      "Insurance claims and pre-authorizations built from a patient's procedures and their estimates, their states from unsent to received, 837D batches sent to a clearinghouse, and the printable claim form.",
  },
  {
    name: "Claim payments",
    description:
      "What carriers paid: ERA (835) files imported, matched to claims and posted, and paper EOBs entered by hand, each split per claim procedure into paid, allowed, write-off and patient responsibility, and posted to the patients' ledgers.",
  },
  {
    name: "Statements",
    description:
      "Statements to a family's guarantor: a PDF of each member's entries in a period, the aged balance, the amount due and a remittance stub, stored as a document and mailed, emailed or handed over; batches that select guarantors by balance, billing type and last statement, with their progress.",
  },
  {
    name: "Patient account",
    description:
      "The family account a front desk works from: each member's aged balance, credit and last payment, the family's merged entries with a running balance, and adjustments (discounts, write-offs, finance charges).",
  },
  {
    name: "Payment plans",
    description:
      "Payment plans a guarantor signs for a patient's debt: the amount financed leaves the aging account, comes back as amortized installments (interest at the plan's APR) posted as charges on their due dates by a nightly job, and the principal left returns when a plan is closed.",
  },
  {
    name: "Reports",
    description:
      "Practice reports summed from the patient ledger's entries, never a second copy: production and collections over a date range by day, provider or location (JSON or CSV), and the daysheet of one day's entries by provider.",
  },
  {
    name: "Scheduling",
    description:
      "Operatories, provider hours and overrides, blockouts, schedule notes, views, preferences, production goals, calendars and availability search.",
  },
  {
    name: "Appointment types",
    description:
      "Kinds of appointment with their code, duration, colour, default fee and whether they require an exam: booking and availability search measure slots by the type's duration.",
  },
  {
    name: "Appointment rules",
    description:
      "Which pairs of appointment types may overlap for one provider or operatory, at one location or org-wide; without such a rule an overlapping booking is 409 booking_conflict.",
  },
  {
    name: "Appointments",
    description: "The booking pipeline: book, reschedule, change status and the front-desk steps (confirmation, check-in, seat, dismiss).",
  },
  {
    name: "Front desk lists",
    description:
      "The lists a front desk works from: unscheduled treatment (planned work on no appointment, per patient), broken appointments not yet rescheduled, appointments to confirm, and the ASAP list.",
  },
  {
    name: "Recall",
    description:
      "Continuing care: recall types (interval, trigger procedure codes), each patient's recalls with their previous, due and scheduled dates kept current from completed and scheduled work, the recall list a front desk calls from, and its month by week.",
  },
  {
    name: "Definitions",
    description:
      "The org's configurable short lists (blockout types, confirmation statuses, ...): entries by category and order, each with its name, value and colour.",
  },
  {
    name: "Codes",
    description:
      "Procedure codes (CDT, CPT, HCPCS and the org's own) with fees and charting flags, ICD-10-CM diagnosis codes, and explosion codes that chart several procedures at once.",
  },
  {
    name: "Fee schedules",
    description:
      "Fee schedules (office, UCR, PPO, allowed) and their fees per procedure code, schedule-wide or for one location: bulk upsert, copy with a percent change, and the default office schedule that charting falls back to.",
  },
  { name: "Odontogram auto-codes", description: "Auto-code families and rules that pick the procedure code from the tooth, surfaces and clinical context." },
  {
    name: "Odontogram configuration",
    description: "What the charting UI reads: hotkeys, interaction modes and macros, each owned by the system, a chart profile or a single user.",
  },
  { name: "Clinical", description: "The tooth chart (tooth statuses, seeding, transitions, indicators) and periodontal exams." },
  { name: "Clinical notes", description: "Clinical notes (append-only once signed, with addendums), note templates and auto-note rules." },
  {
    name: "Clinical: conditions",
    description:
      "Conditions found on a patient's teeth and surfaces (type, severity, status), from the date identified to the date resolved, with the provider and diagnosis.",
  },
  {
    name: "Clinical: chart history",
    description: "The chart as it stood at a date (tooth statuses, procedures and conditions) and the timeline of dates on which it changed; read-only.",
  },
  {
    name: "Clinical: chart pictures",
    description:
      "The tooth chart and perio exams drawn as SVG and PNG (at a date, filtered by status or treatment plan, Universal or FDI numbering), the pictures a patient portal, a referral letter or a treatment-plan presentation shows.",
  },
  {
    name: "Treatment-plan presentations",
    description:
      "A treatment plan as the patient reads and signs it: a PDF with the chart, the procedures, fees and insurance estimates, stored as the patient's document with a signature request; signing accepts the plan.",
  },
  {
    name: "Clinical charting",
    description:
      "Charted procedures (code, tooth or area, status, fees), treatment plans that group them into phases with totals, and spans that tie procedures together, such as a bridge.",
  },
  { name: "Referrals", description: "Referral partners (providers, practices, labs) and referral sources, and for each patient who or what referred them." },
  {
    name: "Insurance",
    description: "Carriers, plans, subscriptions, patient plans and benefits, coverage categories, estimate books, plan imports (drafts) and estimates.",
  },
  { name: "Documents", description: "Upload and processing (virus scan, OCR, classification), versions, categories, links, signatures and downloads." },
  { name: "Revenue", description: "The revenue filter-field registry, filter count and execute, and saved smart lists with their members and actions." },
];
