import type { FilterDefinition } from "@/domains/revenue/filters/schemas";

// The system's preset list templates (docs/revenue/revenue-lists.md, "Presets"). Each
// filter names only registry fields; a test compiles every one. Filters that
// depend on the date (birthdays this month) are built when asked for.

export const PRESET_KEYS = [
  "unscheduled_treatment_over_500",
  "recall_overdue_6_months",
  "no_visit_18_months",
  "insurance_benefits_remaining",
  "balances_over_90",
  "birthdays_this_month",
  "new_patients_no_second_visit",
] as const;
export type PresetKey = (typeof PRESET_KEYS)[number];

export type Preset = { key: PresetKey; name: string; description: string; category: string; filter_definition: FilterDefinition };

const all = (...conditions: FilterDefinition["groups"][number]["conditions"]) => ({ conditions });

/** The presets as of `today` (YYYY-MM-DD, UTC). */
export function presets(today: string): Preset[] {
  const month = Number(today.slice(5, 7));
  return [
    {
      key: "unscheduled_treatment_over_500",
      name: "Unscheduled treatment over $500",
      description: "Patients with treatment-planned procedures not on any appointment, worth more than $500 in total.",
      category: "treatment",
      filter_definition: {
        groups: [all({ field: "has_unscheduled_treatment", operator: "eq", value: true }, { field: "unscheduled_treatment_fee", operator: "gt", value: 500 })],
      },
    },
    {
      key: "recall_overdue_6_months",
      name: "Recall overdue more than 6 months",
      description: "Patients whose next recall (the earliest live one that is not disabled) fell due more than six months ago.",
      category: "recall",
      filter_definition: { groups: [all({ field: "recall_due_date", operator: "more_than_months_ago", value: 6 })] },
    },
    {
      key: "no_visit_18_months",
      name: "No visit in 18 months",
      description:
        "Patients whose last completed visit is more than 18 months ago, and patients added more than 18 months ago who never had a completed visit.",
      category: "visits",
      filter_definition: {
        groups: [
          all({ field: "last_visit_date", operator: "more_than_months_ago", value: 18 }),
          all({ field: "last_visit_date", operator: "is_null" }, { field: "created_at", operator: "more_than_months_ago", value: 18 }),
        ],
      },
    },
    {
      key: "insurance_benefits_remaining",
      name: "Insurance benefits remaining",
      description:
        "Patients whose primary plan still has annual maximum left this benefit year and who have unscheduled treatment: benefits that lapse unless used.",
      category: "insurance",
      filter_definition: {
        groups: [all({ field: "annual_max_remaining", operator: "gt", value: 0 }, { field: "has_unscheduled_treatment", operator: "eq", value: true })],
      },
    },
    {
      key: "balances_over_90",
      name: "Balances over 90 days",
      description: "Patients with any balance aged more than 90 days.",
      category: "balances",
      filter_definition: { groups: [all({ field: "balance_over_90", operator: "gt", value: 0 })] },
    },
    {
      key: "birthdays_this_month",
      name: "Birthdays this month",
      description: `Patients born in the current month (${month} when this answer was made; a list created from it keeps that month).`,
      category: "demographics",
      filter_definition: { groups: [all({ field: "birthday_month", operator: "eq", value: month })] },
    },
    {
      key: "new_patients_no_second_visit",
      name: "New patients without a second visit",
      description:
        "Patients added in the last 12 months who have had a completed visit and have no appointment booked. The registry counts no visits, so one completed visit is approximated by having a last visit and nothing ahead.",
      category: "visits",
      filter_definition: {
        groups: [
          all(
            { field: "created_at", operator: "in_last_months", value: 12 },
            { field: "last_visit_date", operator: "is_not_null" },
            { field: "next_appointment_date", operator: "is_null" },
          ),
        ],
      },
    },
  ];
}

export function presetOf(key: PresetKey, today: string): Preset {
  return presets(today).find((p) => p.key === key)!;
}
