import type { OrgSeed } from "./seed";
import { definitions } from "@db/tenant/definitions";
import { run } from "@/platform/db/work";
import type { DefinitionCategory } from "@db/tenant/definitions";

// [item_name, item_value, item_color?]; item_order follows the array order.
type Item = [string, string, string?];

// Starter items of every category except holidays (each practice names its own
// closed days) and recall_statuses (seeded later, by ./recall.ts). Practices rename, hide, reorder or archive them freely.
const STARTER: Record<Exclude<DefinitionCategory, "holidays" | "recall_statuses">, Item[]> = {
  adjustment_types: [
    // item_value: "-" lowers the balance, "+" raises it
    ["Courtesy discount", "-"],
    ["Senior discount", "-"],
    ["Professional courtesy", "-"],
    ["Insurance write-off", "-"],
    ["Bad debt write-off", "-"],
    ["Refund", "+"],
    ["Finance charge", "+"],
    ["Returned check fee", "+"],
  ],
  appointment_cancellation_reasons: [
    ["Patient cancelled", "patient_cancelled"],
    ["Patient illness", "patient_illness"],
    ["Schedule conflict", "schedule_conflict"],
    ["Transportation", "transportation"],
    ["Weather", "weather"],
    ["Office cancelled", "office_cancelled"],
    ["No show", "no_show"],
  ],
  appointment_confirmation_statuses: [
    ["Not contacted", "not_contacted", "#9E9E9E"],
    ["Left message", "left_message", "#FFC107"],
    ["Text sent", "text_sent", "#03A9F4"],
    ["Email sent", "email_sent", "#3F51B5"],
    ["Confirmed", "confirmed", "#4CAF50"],
    ["Declined to confirm", "declined", "#F44336"],
  ],
  billing_types: [
    ["Standard account", "standard"],
    ["Insurance only", "insurance_only"],
    ["Self-pay", "self_pay"],
    ["Payment plan", "payment_plan"],
    ["Collections", "collections"],
    ["Do not bill", "no_bill"],
  ],
  blockout_types: [
    ["Lunch", "lunch", "#BDBDBD"],
    ["Staff meeting", "staff_meeting", "#90CAF9"],
    ["Emergency hold", "emergency_hold", "#EF9A9A"],
    ["Hygiene only", "hygiene_only", "#A5D6A7"],
    ["Doctor out", "doctor_out", "#FFE082"],
    ["New patients only", "new_patients_only", "#CE93D8"],
  ],
  diagnosis_codes: [
    // item_value: the ICD-10-CM code the diagnosis is billed with
    ["Dental caries", "K02.9"],
    ["Cracked tooth", "K03.81"],
    ["Irreversible pulpitis", "K04.02"],
    ["Periapical abscess", "K04.7"],
    ["Plaque-induced gingivitis", "K05.10"],
    ["Chronic periodontitis", "K05.30"],
    ["Impacted tooth", "K01.1"],
    ["Excessive attrition", "K03.0"],
    ["Partial loss of teeth", "K08.409"],
    ["Defective restoration", "K08.50"],
  ],
  document_categories: [
    ["X-rays", "xrays"],
    ["Photos", "photos"],
    ["Insurance cards", "insurance_cards"],
    ["Consent forms", "consent_forms"],
    ["Referrals", "referrals"],
    ["Lab reports", "lab_reports"],
    ["Treatment plans", "treatment_plans"],
    ["Medical history", "medical_history"],
    ["Explanations of benefits", "eob"],
    ["Correspondence", "correspondence"],
    ["Identification", "identification"],
  ],
  patient_alert_categories: [
    ["Medical", "medical", "#F44336"],
    ["Allergy", "allergy", "#FF5722"],
    ["Premedication required", "premedication", "#E91E63"],
    ["Financial", "financial", "#FF9800"],
    ["Behavioral", "behavioral", "#9C27B0"],
    ["Scheduling", "scheduling", "#2196F3"],
  ],
  payment_types: [
    ["Cash", "cash"],
    ["Check", "check"],
    ["Credit card", "credit_card"],
    ["Debit card", "debit_card"],
    ["Electronic transfer", "electronic_transfer"],
    ["Patient financing", "financing"],
    ["Insurance payment", "insurance"],
  ],
  priority: [
    ["Urgent", "urgent", "#D32F2F"],
    ["High", "high", "#F57C00"],
    ["Normal", "normal", "#1976D2"],
    ["Low", "low", "#388E3C"],
    ["Elective", "elective", "#7B1FA2"],
  ],
  prognosis: [
    ["Good", "good"],
    ["Fair", "fair"],
    ["Poor", "poor"],
    ["Questionable", "questionable"],
    ["Hopeless", "hopeless"],
  ],
};

export const definitionSeed: OrgSeed = {
  name: "definitions",
  *run(tx, now) {
    const rows = Object.entries(STARTER).flatMap(([category, items]) =>
      items.map(([item_name, item_value, item_color], item_order) => ({
        id: Bun.randomUUIDv7(),
        category,
        item_name,
        item_value,
        item_order,
        item_color: item_color ?? null,
        is_hidden: false,
        metadata: null,
        created_at: now,
        updated_at: now,
        version: 1,
      })),
    );
    yield* run(tx.insert(definitions).values(rows));
  },
};
