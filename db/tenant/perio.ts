import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { id, json, softDelete, versioned } from "@db/columns";
import { patients } from "./patients";
import { providers } from "./practice";

/** One tooth's measurements in a perio exam (sites mb, b, db, ml, l, dl; mm). */
export type PerioSites = { mb: number; b: number; db: number; ml: number; l: number; dl: number };
export type PerioTooth = {
  tooth_number: string;
  mobility: number | null;
  furcation: number | null;
  pocket_depths: PerioSites;
  recession: PerioSites | null;
  bleeding_sites: (keyof PerioSites)[];
  /** Absent in exams recorded before plaque and suppuration were charted: read as []. */
  plaque_sites?: (keyof PerioSites)[];
  suppuration_sites?: (keyof PerioSites)[];
};

// Periodontal exams (docs/clinical/tooth-chart.md). An exam is written and replaced with all
// its teeth; the per-tooth measurements live in one JSON column because they are
// always read and written together with the exam.
export const perioExams = sqliteTable(
  "perio_exams",
  {
    id: id(),
    patient_id: text("patient_id")
      .notNull()
      .references(() => patients.id),
    exam_date: text("exam_date").notNull(),
    provider_id: text("provider_id").references(() => providers.id),
    note: text("note").notNull().default(""),
    teeth: json<PerioTooth[]>("teeth").notNull(),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [index("perio_exams_patient_date_idx").on(t.patient_id, t.exam_date)],
);
