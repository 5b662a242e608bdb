import { DEEP_POCKET_MM, PERIO_SITES, type PerioChartPicture, type PerioChartTooth, type PerioExamPicture, POCKET_HIGHLIGHT_MM, type PerioSite } from "./model";
import { FACIAL_SITES, LINGUAL_SITES, permanentNumber } from "./perio-geometry";

// The words and counts of the perio chart: the teeth it draws, the summary
// line, and each tooth's description (what a screen reader says).

/** Probing varies by about ±1 mm, so 2 mm is the usual threshold of a real change (as in the exam summary). */
export const CHANGE_THRESHOLD_MM = 2;

/** The exam's teeth by number: permanent teeth only (the only ones drawn); the first entry wins should one repeat. */
export function teethByNumber(exam: PerioExamPicture): Map<string, PerioChartTooth> {
  const byNumber = new Map<string, PerioChartTooth>();
  for (const t of exam.teeth) {
    if (permanentNumber(t.tooth) !== null && !byNumber.has(t.tooth)) byNumber.set(t.tooth, t);
  }
  return byNumber;
}

/** The teeth drawn with bars: in the exam and not charted absent. */
export function probedTeeth(picture: PerioChartPicture): Map<string, PerioChartTooth> {
  const probed = teethByNumber(picture.exam);
  for (const absent of picture.absent_teeth) probed.delete(absent);
  return probed;
}

/** Now minus before at `site` when a real change (2 mm or more), else null. */
export function siteChange(now: PerioChartTooth, before: PerioChartTooth | undefined, site: PerioSite): number | null {
  if (!before) return null;
  const change = now.pocket_depths[site] - before.pocket_depths[site];
  return Math.abs(change) >= CHANGE_THRESHOLD_MM ? change : null;
}

export function signed(n: number): string {
  return n > 0 ? `+${n}` : `${n}`;
}

/** 100 × part / whole rounded half up to one decimal, as the exam summary does (4 of 12 → 33.3); 0 when whole is 0. */
export function percentage(part: number, whole: number): number {
  if (whole === 0) return 0;
  return Math.floor((2000 * part + whole) / (2 * whole)) / 10;
}

export type PerioCounts = {
  teeth: number;
  sites: number;
  sites4: number;
  sites6: number;
  bleeding: number;
  bleedingPercentage: number;
  /** Null without compare_to. */
  deeper: number | null;
  shallower: number | null;
};

const uniqueSites = (sites: PerioSite[]): PerioSite[] => PERIO_SITES.filter((s) => sites.includes(s));

export function perioCounts(picture: PerioChartPicture): PerioCounts {
  const probed = [...probedTeeth(picture).values()];
  const before = picture.compare_to ? teethByNumber(picture.compare_to) : null;
  const depths = probed.flatMap((t) => PERIO_SITES.map((s) => t.pocket_depths[s]));
  const bleeding = probed.reduce((sum, t) => sum + uniqueSites(t.bleeding_sites).length, 0);
  const changes = before ? probed.flatMap((t) => PERIO_SITES.map((s) => siteChange(t, before.get(t.tooth), s))) : [];
  const sites = depths.length;
  return {
    teeth: probed.length,
    sites,
    sites4: depths.filter((d) => d >= POCKET_HIGHLIGHT_MM).length,
    sites6: depths.filter((d) => d >= DEEP_POCKET_MM).length,
    bleeding,
    bleedingPercentage: percentage(bleeding, sites),
    deeper: before ? changes.filter((c) => c !== null && c > 0).length : null,
    shallower: before ? changes.filter((c) => c !== null && c < 0).length : null,
  };
}

/** The line under the chart. */
export function summaryLine(picture: PerioChartPicture, counts: PerioCounts): string {
  const parts = [
    `Sites ≥ ${POCKET_HIGHLIGHT_MM} mm: ${counts.sites4}`,
    `Sites ≥ ${DEEP_POCKET_MM} mm: ${counts.sites6}`,
    `Bleeding on probing: ${counts.bleedingPercentage}% (${counts.bleeding} of ${counts.sites} sites)`,
  ];
  if (picture.compare_to && counts.deeper !== null && counts.shallower !== null) {
    parts.push(`Since ${picture.compare_to.exam_date}: ${counts.deeper} deeper, ${counts.shallower} shallower by ≥ ${CHANGE_THRESHOLD_MM} mm`);
  }
  return parts.join("  ·  ");
}

export function examLine(picture: PerioChartPicture): string {
  const exam = `Exam ${picture.exam.exam_date}`;
  return picture.compare_to ? `${exam} compared with ${picture.compare_to.exam_date}` : exam;
}

/** The picture's <desc>. */
export function pictureDescription(picture: PerioChartPicture, counts: PerioCounts): string {
  const absent = picture.absent_teeth.filter((t) => permanentNumber(t) !== null);
  const sentences = [
    `Periodontal chart, ${examLine(picture).toLowerCase()}.`,
    `${counts.teeth} teeth probed, ${counts.sites} sites: ${counts.sites4} at ${POCKET_HIGHLIGHT_MM} mm or more, ${counts.sites6} at ${DEEP_POCKET_MM} mm or more; bleeding at ${counts.bleeding} sites (${counts.bleedingPercentage}%).`,
  ];
  if (counts.deeper !== null && counts.shallower !== null) {
    sentences.push(`${counts.deeper} sites ${CHANGE_THRESHOLD_MM} mm or more deeper, ${counts.shallower} shallower.`);
  }
  if (absent.length > 0) sentences.push(`Absent: ${absent.join(", ")}.`);
  return sentences.join(" ");
}

const SITE_NAMES: Readonly<Record<PerioSite, string>> = { mb: "MB", b: "B", db: "DB", ml: "ML", l: "L", dl: "DL" };
const siteList = (sites: PerioSite[]): string =>
  uniqueSites(sites)
    .map((s) => SITE_NAMES[s])
    .join(", ");

function sideDepths(values: Record<PerioSite, number>, sites: readonly PerioSite[], name: string): string {
  const numbers = sites.map((s) => values[s]).join(" ");
  const deep = sites.filter((s) => values[s] >= POCKET_HIGHLIGHT_MM).map((s) => `${SITE_NAMES[s]} ${values[s]} mm`);
  return deep.length > 0 ? `${name} ${numbers} (${deep.join(", ")})` : `${name} ${numbers}`;
}

const bothSides = (values: Record<PerioSite, number>): string =>
  `${sideDepths(values, FACIAL_SITES, "facial")}, ${sideDepths(values, LINGUAL_SITES, "lingual")}`;

/**
 * A tooth's <desc>: "Tooth 3: facial 3 2 6 (DB 6 mm), lingual 3 2 3;
 * bleeding at B, DB; mobility 1". Depths in MB B DB / ML L DL order.
 */
export function toothDescription(label: string, now: PerioChartTooth | null, absent: boolean, before: PerioChartTooth | null | undefined): string {
  if (absent) return `Tooth ${label}: absent.`;
  if (!now) return `Tooth ${label}: not probed.`;
  const parts = [bothSides(now.pocket_depths)];
  if (now.recession)
    parts.push(`recession ${FACIAL_SITES.map((s) => now.recession?.[s]).join(" ")} facial, ${LINGUAL_SITES.map((s) => now.recession?.[s]).join(" ")} lingual`);
  const lists: [string, PerioSite[]][] = [
    ["bleeding", now.bleeding_sites],
    ["suppuration", now.suppuration_sites],
    ["plaque", now.plaque_sites],
  ];
  for (const [name, sites] of lists) if (uniqueSites(sites).length > 0) parts.push(`${name} at ${siteList(sites)}`);
  if (now.mobility !== null) parts.push(`mobility ${now.mobility}`);
  if (now.furcation !== null) parts.push(`furcation ${now.furcation}`);
  // undefined: no comparison asked for; null: asked, but the earlier exam did not probe the tooth.
  if (before === null) parts.push("not in the earlier exam");
  if (before) {
    parts.push(`earlier ${bothSides(before.pocket_depths)}`);
    const moved = PERIO_SITES.flatMap((s) => {
      const change = siteChange(now, before, s);
      return change === null ? [] : [`${SITE_NAMES[s]} ${signed(change)}`];
    });
    if (moved.length > 0) parts.push(`changed ${CHANGE_THRESHOLD_MM} mm or more at ${moved.join(", ")}`);
  }
  return `Tooth ${label}: ${parts.join("; ")}.`;
}
