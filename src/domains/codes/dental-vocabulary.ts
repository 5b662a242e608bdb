import { z } from "zod";
import { openApiComponent } from "@/platform/http/openapi-components";
import {
  CONDITION_SEVERITIES,
  CONDITION_STATUSES,
  CONDITION_TYPES,
  ODONTOGRAM_SURFACE_LETTERS,
  PERMANENT_TEETH,
  PRIMARY_TEETH,
  PROCEDURE_STATUSES,
  SUPERNUMERARY_TEETH,
  SURFACE_LETTERS,
  TOOTH_STATUSES,
  UNIVERSAL_TEETH,
  type Arch,
  type Dentition,
  type ToothPosition,
  type ToothType,
} from "@db/tenant/dental-vocabulary";

// The dental vocabulary as the API checks it (docs/clinical/charting.md, "One
// dental vocabulary"): tooth numbers, surfaces, tooth statuses, procedure
// statuses and condition types. The value lists are db/tenant/dental-vocabulary.ts;
// here are what a tooth number means (toothOf), the zod schemas built from the
// lists, and the OpenAPI components the enums become. Every feature that takes
// or answers one of these imports it from here.
//
// The tooth-number and surface fields differ from endpoint to endpoint in what
// they let through around the one rule (spaces, lower case, supernumerary teeth,
// at most how many surfaces, the order they are answered in) and in their
// messages. Each endpoint keeps what it has always accepted and said: the
// differences are the named variants of `ToothNumber` and `Surfaces` below.

// ---- tooth numbers ----

export type Tooth = { tooth: string; dentition: Dentition; arch: Arch; tooth_type: ToothType; tooth_position: ToothPosition };

const PERMANENT = new Set(PERMANENT_TEETH);
const PRIMARY = new Set(PRIMARY_TEETH);
const SUPERNUMERARY = new Set(SUPERNUMERARY_TEETH);

/** What a tooth is, from its Universal number (1-32, or "1"-"32") or letter (A-T, any case, spaces around ignored); null for anything else. */
export function toothOf(input: string | number): Tooth | null {
  const s = String(input).trim().toUpperCase();
  if (PERMANENT.has(s)) {
    const n = Number(s);
    const inArch = n <= 16 ? n : n - 16; // 1..16 along the arch
    const fromMidline = inArch <= 8 ? 9 - inArch : inArch - 8; // 1 central incisor .. 8 third molar
    const type: ToothType = fromMidline <= 2 ? "incisor" : fromMidline === 3 ? "canine" : fromMidline <= 5 ? "premolar" : "molar";
    return described(String(n), "permanent", n <= 16 ? "upper" : "lower", type);
  }
  if (PRIMARY.has(s)) {
    const i = s.charCodeAt(0) - 65; // A = 0
    const inArch = i % 10;
    const fromMidline = inArch < 5 ? 5 - inArch : inArch - 4; // 1 central incisor .. 5 second molar
    const type: ToothType = fromMidline <= 2 ? "incisor" : fromMidline === 3 ? "canine" : "molar"; // no primary premolars
    return described(s, "primary", i < 10 ? "upper" : "lower", type);
  }
  return null;
}

function described(tooth: string, dentition: Dentition, arch: Arch, tooth_type: ToothType): Tooth {
  return { tooth, dentition, arch, tooth_type, tooth_position: tooth_type === "incisor" || tooth_type === "canine" ? "anterior" : "posterior" };
}

/** The canonical form (letters upper case) of a tooth number the chart takes (Universal or supernumerary), or null. */
export function chartTooth(input: string): string | null {
  const s = input.trim().toUpperCase();
  return toothOf(s)?.tooth ?? (SUPERNUMERARY.has(s) ? s : null);
}

export const isPrimary = (t: string) => PRIMARY.has(t);
export const isPermanent = (t: string) => PERMANENT.has(t);

/** UNIVERSAL_TEETH as a regular-expression group (letters either case): the form the published patterns use. */
export const UNIVERSAL_TOOTH_PATTERN = "(?:[1-9]|[12][0-9]|3[0-2]|[A-Ta-t])";
const TOOTH_RE = new RegExp(`^${UNIVERSAL_TOOTH_PATTERN}$`);
const PADDED_TOOTH_RE = new RegExp(`^\\s*${UNIVERSAL_TOOTH_PATTERN}\\s*$`);
const canonicalTooth = (v: string) => toothOf(v)!.tooth;

/** Universal tooth numbers exactly as stored: "1"-"32", "A"-"T" (an enum; OpenAPI component UniversalToothNumber). */
export const UniversalToothNumber = openApiComponent(
  "UniversalToothNumber",
  z.enum(UNIVERSAL_TEETH as [string, ...string[]]).describe("Universal numbering: 1-32 permanent, A-T primary"),
);

const CHART_TOOTH_MESSAGES = {
  any: "Must be a Universal tooth number: 1-32, A-T, or supernumerary 51-82 / AS-TS",
  primary: "Must be a primary tooth letter A-T",
  permanent: "Must be a permanent tooth number 1-32",
} as const;

/**
 * A tooth number in a request, as each feature takes it. All answer the
 * canonical form ("b" -> "B") except `autoCode`, which hands the value on as sent.
 */
export const ToothNumber = {
  /** Conditions (body and `?tooth_number=`): 1-32 or A-T, letters any case, nothing around them. */
  condition: z.string().regex(TOOTH_RE, "Universal tooth number: 1-32 (permanent) or A-T (primary)").transform(canonicalTooth),
  /** Charted procedures (body and `?tooth_number=`): as `condition`, spaces around allowed. */
  procedure: z
    .string()
    .regex(PADDED_TOOTH_RE, "Must be a Universal tooth number: 1-32 or A-T")
    .transform(canonicalTooth)
    .describe("Universal numbering: permanent 1-32, primary A-T (letters any case, answered upper-case)"),
  /** Odontogram macros (actions, the expand context): as `condition`, with its own message. */
  macro: z.string().regex(TOOTH_RE, "Must be a universal tooth number: 1-32 or A-T").transform(canonicalTooth),
  /** Explosion codes: the canonical value only (upper case, nothing around it). */
  explosion: UniversalToothNumber,
  /** Auto-code resolve: also a JSON number; a string may have spaces around and lower case. */
  autoCode: z
    .union([z.number(), z.string()])
    .refine((t) => toothOf(t) !== null, "Must be a Universal tooth number 1-32 or a primary tooth letter A-T")
    .describe("Universal numbering: 1-32 (permanent) or A-T (primary); tooth type, position, arch and dentition are derived from it"),
  /**
   * The tooth chart and perio: also supernumerary teeth (51-82, AS-TS), letters
   * any case, spaces around allowed; `primary` and `permanent` narrow it.
   */
  chart(kind: keyof typeof CHART_TOOTH_MESSAGES = "any") {
    const ok = (t: string | null) => !!t && (kind === "any" || (kind === "primary" ? isPrimary(t) : isPermanent(t)));
    return z
      .string()
      .max(3)
      .refine((v) => ok(chartTooth(v)), CHART_TOOTH_MESSAGES[kind])
      .transform((v) => chartTooth(v)!)
      .describe(`${CHART_TOOTH_MESSAGES[kind].slice(8)} (case-insensitive)`);
  },
};

// ---- surfaces ----

const LETTERS = SURFACE_LETTERS.join(""); // "MODBLIFV"
const ANY_CASE = `${LETTERS}${LETTERS.toLowerCase()}`;
const listed = (letters: readonly string[]) => letters.join(", ");
/** The letters of `v` in canonical order (M O D B L I F V): "om" -> "MO". */
/** Where a charted procedure is: the columns that name its site. */
export type ProcedureSite = {
  procedure_code: string;
  tooth_number: string | null;
  surfaces: string | null;
  quadrant: string | null;
  arch: string | null;
  sextant: number | null;
  tooth_range: string | null;
};

/** The short name of a procedure: the code and where, e.g. "D2391 #3 MO", "D4341 UR" (spans, appointments, lists). */
export function procedureLabel(r: ProcedureSite): string {
  const where = r.tooth_number
    ? `#${r.tooth_number}${r.surfaces ? ` ${r.surfaces}` : ""}`
    : r.tooth_range
      ? `#${r.tooth_range}`
      : (r.quadrant ?? r.arch ?? (r.sextant ? `sextant ${r.sextant}` : ""));
  return where ? `${r.procedure_code} ${where}` : r.procedure_code;
}

export const inSurfaceOrder = (v: string) => SURFACE_LETTERS.filter((l) => v.toUpperCase().includes(l)).join("");
/** Each letter at most once, ignoring case. */
const distinct = (v: string) => new Set(v.toUpperCase()).size === v.length;
const MACRO_SURFACES_RE = new RegExp(`^(?!.*(.).*\\1)[${ODONTOGRAM_SURFACE_LETTERS.join("")}]{1,5}$`);

/** Surface letters in a request, as each feature takes them (SURFACE_LETTERS; the odontogram's tools leave out V). */
export const Surfaces = {
  /** Conditions: letters any case, each once; answered in canonical order ("om" -> "MO"). */
  condition: z
    .string()
    .regex(new RegExp(`^[${ANY_CASE}]{1,${LETTERS.length}}$`), `Surface letters ${listed(SURFACE_LETTERS)}`)
    .refine(distinct, "Each surface letter at most once")
    .transform(inSurfaceOrder),
  /** Charted procedures: as `condition`, spaces around allowed, with their own messages. */
  procedure: z
    .string()
    .regex(new RegExp(`^\\s*[${ANY_CASE}]{1,${LETTERS.length}}\\s*$`), `Surfaces are letters of ${listed(SURFACE_LETTERS)}`)
    .refine((v) => distinct(v.trim()), "Each surface may appear once")
    .transform(inSurfaceOrder)
    .describe('Surface letters M O D B L I F V, any order and case; answered in canonical order ("dom" -> "MOD")'),
  /** Odontogram macros: 1-5 of M O D B L I F (no V), any case, each once; answered upper case in the order given. */
  macro: z
    .string()
    .transform((v) => v.toUpperCase())
    .refine((v) => MACRO_SURFACES_RE.test(v), `Must be 1-5 distinct surface letters from ${listed(ODONTOGRAM_SURFACE_LETTERS)}`),
  /** Explosion codes: 1-6 letters, spaces around and lower case allowed, each once; answered upper case in the order given. */
  explosion: z
    .string()
    .trim()
    .toUpperCase()
    .regex(new RegExp(`^[${LETTERS}]{1,6}$`), `Must be surface letters ${listed(SURFACE_LETTERS.slice(0, -1))} or ${SURFACE_LETTERS.at(-1)}, e.g. MOD`)
    .refine(distinct, "Must not repeat a surface")
    .describe("Surface letters, e.g. MOD"),
  /** Auto-code resolve: 1-5 letters, spaces around and lower case allowed, each once; handed on trimmed, case as sent. */
  autoCode: z
    .string()
    .trim()
    .regex(new RegExp(`^[${LETTERS}]{1,5}$`, "i"), `Must be 1-5 surface letters among ${listed(SURFACE_LETTERS)}`)
    .refine(distinct, "Must not repeat a surface"),
};

// ---- statuses and condition types (OpenAPI components of those names) ----

export const ToothStatusValue = openApiComponent("ToothStatusValue", z.enum(TOOTH_STATUSES));
export type ToothStatusValue = z.infer<typeof ToothStatusValue>;
export const ProcedureStatus = openApiComponent("ProcedureStatus", z.enum(PROCEDURE_STATUSES));
export type ProcedureStatus = z.infer<typeof ProcedureStatus>;
export const ConditionType = openApiComponent("ConditionType", z.enum(CONDITION_TYPES));
export type ConditionType = z.infer<typeof ConditionType>;
export const ConditionStatus = openApiComponent("ConditionStatus", z.enum(CONDITION_STATUSES));
export type ConditionStatus = z.infer<typeof ConditionStatus>;
export const ConditionSeverity = openApiComponent("ConditionSeverity", z.enum(CONDITION_SEVERITIES));
export type ConditionSeverity = z.infer<typeof ConditionSeverity>;
