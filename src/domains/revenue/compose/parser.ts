import { compileFilter } from "@/domains/revenue/filters/compile";
import type { FilterDefinition } from "@/domains/revenue/filters/schemas";
import type { ComposeResult } from "./schemas";

// POST /compose is a stub (spec.md): a deterministic keyword parser over the
// field registry, no language model. Each rule turns a phrase into registry
// conditions; the recognised conditions are joined by AND in one group.
// docs/revenue/revenue-lists.md lists the phrases.

type Condition = FilterDefinition["groups"][number]["conditions"][number];
type Rule = { pattern: RegExp; conditions: (m: RegExpExecArray, month: number) => Condition[]; says: (m: RegExpExecArray, month: number) => string };

const months = (n: string, unit: string) => (unit.startsWith("year") ? Number(n) * 12 : Number(n));
const nextMonth = (month: number) => (month % 12) + 1;

// Most specific first: a phrase a rule matched is removed before the next rules look.
const RULES: Rule[] = [
  {
    pattern: /unscheduled (?:treatment|procedures?|work) (?:over|above|more than|greater than|of more than) \$?(\d{1,7})/,
    conditions: (m) => [
      { field: "has_unscheduled_treatment", operator: "eq", value: true },
      { field: "unscheduled_treatment_fee", operator: "gt", value: Number(m[1]) },
    ],
    says: (m) => `have unscheduled treatment worth more than $${m[1]}`,
  },
  {
    pattern: /unscheduled (?:treatment|procedures?|work)|treatment (?:not|un)scheduled|pending treatment/,
    conditions: () => [{ field: "has_unscheduled_treatment", operator: "eq", value: true }],
    says: () => "have unscheduled treatment",
  },
  {
    pattern: /(?:no|without an?|without any|not) (?:upcoming |future |next |scheduled )?appointments?|nothing (?:booked|scheduled)|not (?:booked|scheduled)/,
    conditions: () => [{ field: "next_appointment_date", operator: "is_null" }],
    says: () => "have no upcoming appointment",
  },
  {
    pattern: /(?:has|have|with) an? (?:upcoming |future |next )?appointment|upcoming appointments?/,
    conditions: () => [{ field: "next_appointment_date", operator: "is_not_null" }],
    says: () => "have an upcoming appointment",
  },
  {
    pattern: /balances? (?:over|past|older than|more than|above) 90(?: days)?|over 90 days|90\+ days?|(?:aged|past due) (?:over )?90/,
    conditions: () => [{ field: "balance_over_90", operator: "gt", value: 0 }],
    says: () => "have a balance older than 90 days",
  },
  {
    pattern: /(?:outstanding |open |unpaid )?balances?|owe money|owing/,
    conditions: () => [{ field: "total_balance", operator: "gt", value: 0 }],
    says: () => "have an outstanding balance",
  },
  {
    pattern: /birthdays? (?:is |are |in )?(?:this|the current) month|born this month/,
    conditions: (_m, month) => [{ field: "birthday_month", operator: "eq", value: month }],
    says: (_m, month) => `have their birthday this month (month ${month})`,
  },
  {
    pattern: /birthdays? (?:is |are |in )?next month/,
    conditions: (_m, month) => [{ field: "birthday_month", operator: "eq", value: nextMonth(month) }],
    says: (_m, month) => `have their birthday next month (month ${nextMonth(month)})`,
  },
  {
    pattern: /overdue (?:for )?(?:a )?recall|recall (?:is |are )?(?:overdue|past due)|past due (?:for )?recall|overdue/,
    conditions: () => [{ field: "recall_overdue", operator: "eq", value: true }],
    says: () => "are overdue for recall",
  },
  {
    pattern:
      /(?:haven't|have not|has not|hasn't|not) (?:been seen|visited|come in|had a visit) (?:in|for) (?:the last |over |more than )?(\d{1,3}) (months?|years?)|no visits? (?:in|for) (?:the last |over |more than )?(\d{1,3}) (months?|years?)/,
    conditions: (m) => [{ field: "last_visit_date", operator: "more_than_months_ago", value: months(m[1] ?? m[3]!, m[2] ?? m[4]!) }],
    says: (m) => `had their last visit more than ${months(m[1] ?? m[3]!, m[2] ?? m[4]!)} months ago`,
  },
  {
    pattern: /(?:no|without an?|without|missing) e-?mail(?: address)?/,
    conditions: () => [{ field: "has_email", operator: "eq", value: false }],
    says: () => "have no email address",
  },
  {
    pattern: /(?:no|without an?|without|missing) (?:mobile|cell)(?: phone| number)?/,
    conditions: () => [{ field: "has_mobile_phone", operator: "eq", value: false }],
    says: () => "have no mobile phone",
  },
  {
    pattern: /(?:has|have|with) an? e-?mail(?: address)?/,
    conditions: () => [{ field: "has_email", operator: "eq", value: true }],
    says: () => "have an email address",
  },
  {
    pattern: /(?:no|without|without any) (?:active )?(?:dental )?insurance|uninsured|self[- ]pay/,
    conditions: () => [{ field: "has_active_insurance", operator: "eq", value: false }],
    says: () => "have no active insurance",
  },
  {
    pattern: /(?:active |dental )?insurance|insured/,
    conditions: () => [{ field: "has_active_insurance", operator: "eq", value: true }],
    says: () => "have active insurance",
  },
  {
    pattern: /no[- ]shows?|missed appointments?/,
    conditions: () => [{ field: "no_show_count", operator: "gt", value: 0 }],
    says: () => "have missed an appointment (no-show)",
  },
  {
    pattern: /(?:older than|over|above|aged over) (\d{1,3})(?: years)?(?: old)?/,
    conditions: (m) => [{ field: "age", operator: "gt", value: Number(m[1]) }],
    says: (m) => `are older than ${m[1]}`,
  },
  {
    pattern: /(?:younger than|under|below) (\d{1,3})(?: years)?(?: old)?|children|kids/,
    conditions: (m) => [{ field: "age", operator: "lt", value: m[1] ? Number(m[1]) : 18 }],
    says: (m) => `are younger than ${m[1] ?? 18}`,
  },
  {
    pattern: /new patients?/,
    conditions: () => [{ field: "created_at", operator: "in_last_months", value: 12 }],
    says: () => "were added in the last 12 months",
  },
  {
    pattern: /(?:consent(?:s|ed)? to|opted in to|accept) (?:texts?|sms|text messages)|(?:text|sms) consent/,
    conditions: () => [{ field: "consents_to_sms", operator: "eq", value: true }],
    says: () => "consent to text messages",
  },
];

const FILLER = new Set(
  "a an the all any and or who whose which that with have has had are is be been of in for to me show find list give get patients patient people those their them there my our".split(
    " ",
  ),
);
const words = (s: string) => s.split(/[^a-z0-9$+'-]+/).filter((w) => w && !FILLER.has(w));

/** The stub's answer for `query` on `today` (YYYY-MM-DD, UTC). */
export function compose(query: string, today: string): ComposeResult {
  const month = Number(today.slice(5, 7));
  let rest = ` ${query.toLowerCase().replace(/\s+/g, " ").trim()} `;
  const total = words(rest).length;
  const conditions: Condition[] = [];
  const phrases: string[] = [];
  for (const rule of RULES) {
    const m = rule.pattern.exec(rest);
    if (!m) continue;
    const found = rule.conditions(m, month).filter((c) => !conditions.some((d) => d.field === c.field));
    if (found.length) {
      conditions.push(...found);
      phrases.push(rule.says(m, month));
    }
    rest = `${rest.slice(0, m.index)} ${rest.slice(m.index + m[0].length)}`;
  }
  const leftover = words(rest);
  const warnings: string[] = [];
  if (!conditions.length) {
    return {
      confidence: 0,
      explanation: "Nothing in the query matched a phrase the parser knows; no filter was built.",
      field_keys_used: [],
      filter_definition: null,
      warnings: ['No condition recognised: try phrases such as "unscheduled treatment", "no appointment", "balance over 90 days", "overdue recall"'],
    };
  }
  if (leftover.length) warnings.push(`Not understood and left out: ${leftover.slice(0, 20).join(", ")}`);
  if (/\bor\b/.test(query.toLowerCase())) warnings.push("Only AND is understood: every recognised condition was joined with AND");
  const filter: FilterDefinition = { groups: [{ conditions }] };
  compileFilter(filter, today); // by construction; a rule naming a retired field fails loudly here
  const understood = total === 0 ? 1 : (total - leftover.length) / total;
  return {
    confidence: Math.round(Math.max(0.1, Math.min(1, understood)) * 100) / 100,
    explanation: `Patients who ${phrases.join(" and ")}.`,
    field_keys_used: [...new Set(conditions.map((c) => c.field))],
    filter_definition: filter,
    warnings,
  };
}
