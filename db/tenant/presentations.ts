import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { id, json, versioned } from "@db/columns";
import { treatmentPlans } from "./charted-procedures";
import { documents } from "./documents";
import { patients } from "./patients";

// A treatment plan as presented to the patient (docs/clinical/chart-pictures.md,
// "Presentations"): the PDF stored as a document of the patient, the signature
// request opened on it, and the figures it showed, frozen. Signing the
// document accepts the plan; the document then never changes, whatever
// happens to fees or estimates later.

export type PresentationFigures = {
  procedure_count: number;
  fee_cents: number;
  insurance_cents: number[];
  /** The PPO write-off the estimates expect (fee less insurance and patient). */
  write_off_cents: number;
  patient_cents: number;
  estimate_state: "current" | "stale" | "none";
  procedure_ids: string[];
  /** The plan's version once presented: signing refuses a presentation of a plan changed since. */
  plan_version: number;
};

export const treatmentPlanPresentations = sqliteTable(
  "treatment_plan_presentations",
  {
    id: id(),
    patient_id: text("patient_id")
      .notNull()
      .references(() => patients.id),
    treatment_plan_id: text("treatment_plan_id")
      .notNull()
      .references(() => treatmentPlans.id),
    document_id: text("document_id")
      .notNull()
      .references(() => documents.id),
    // the request opened on the document; the presentation's status is the signature's (pending, signed, declined, canceled)
    signature_id: text("signature_id").notNull(),
    figures: json<PresentationFigures>("figures").notNull(),
    sha256: text("sha256").notNull(),
    page_count: integer("page_count").notNull(),
    presented_by: text("presented_by"),
    ...versioned(),
  },
  (t) => [
    index("treatment_plan_presentations_plan_idx").on(t.treatment_plan_id, t.created_at),
    index("treatment_plan_presentations_document_idx").on(t.document_id),
  ],
);
