import { z } from "zod";
import { DateTime, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { PATIENT_STATUSES } from "@/domains/patients/record/schemas";

export const RELATIONSHIP_TYPES = [
  "spouse",
  "life_partner",
  "parent",
  "child",
  "sibling",
  "guardian",
  "grandparent",
  "grandchild",
  "stepparent",
  "stepchild",
  "foster_child",
  "caregiver",
  "other_family",
  "merge",
  "clone",
] as const;
export type RelationshipType = (typeof RELATIONSHIP_TYPES)[number];

const Type = z.enum(RELATIONSHIP_TYPES);

// Names and refs are derived from the two patients: 422 read_only when sent.
const DERIVED = ["from_patient", "from_patient_name", "to_patient", "to_patient_name"];

export const RelationshipCreate = z
  .strictObject({
    to_patient_uuid: Uuid.describe("The related patient, in this org and not archived (404 otherwise); not the patient itself (422 self_relationship)"),
    relationship_type: Type.describe("What the path's patient (from_patient) is to to_patient: parent means \"from_patient is to_patient's parent\""),
    is_guardian: z.boolean().default(false).describe("true: from_patient is a guardian of to_patient, who then appears in from_patient's /dependents"),
    note: z.string().trim().max(2000).nullable().optional(),
  })
  .meta({ readOnly: DERIVED });
export type RelationshipCreate = z.infer<typeof RelationshipCreate>;

export const Relationship = z
  .object({
    ...RecordMeta,
    from_patient: Ref.describe("The patient the record belongs to (the path's patient when it was created)"),
    from_patient_name: z.string().nullable(),
    to_patient: Ref,
    to_patient_name: z.string().nullable(),
    relationship_type: Type,
    is_guardian: z.boolean(),
    note: z.string().nullable(),
    deleted_at: DateTime.nullable(),
  })
  .meta({ id: "PatientRelationship" });
export type Relationship = z.infer<typeof Relationship>;

export const RelationshipListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  direction: z
    .enum(["outgoing", "incoming", "all"])
    .default("outgoing")
    .describe("outgoing: records of this patient (from_patient); incoming: records naming it as to_patient; all: both"),
  relationship_type: Type.optional(),
});
export type RelationshipListQuery = z.infer<typeof RelationshipListQuery>;

/** Lists that take no parameters (unknown ones are 422, as everywhere). */
export const NoQuery = z.strictObject({});

export const RelationshipList = z.object({ items: z.array(Relationship), total: z.number().int() });

export const FamilyMember = z
  .object({
    id: z.string(),
    uuid: z.string().describe("Same value as id"),
    first_name: z.string(),
    last_name: z.string(),
    preferred_name: z.string().nullable(),
    date_of_birth: z.string().nullable(),
    status: z.enum(PATIENT_STATUSES),
    is_guarantor: z.boolean(),
    relationship_to_guarantor: Type.nullable().describe(
      "What this member is to the guarantor (child: the guarantor's child), from a recorded relationship in either direction; null when none is recorded and for the guarantor",
    ),
  })
  .meta({ id: "FamilyMember" });

export const Family = z
  .object({
    guarantor: Ref.describe("The patient's responsible party, or the patient itself when it has none"),
    items: z.array(FamilyMember).describe("The guarantor first, then by last name, first name and id; archived patients are left out"),
    total: z.number().int(),
  })
  .meta({ id: "Family" });
export type Family = z.infer<typeof Family>;
