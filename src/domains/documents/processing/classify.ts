import { parseDicom } from "dicom-parser";

/**
 * Rule-based proposal of a spec document_type for an uploaded document. It only proposes: the
 * result is stored as ai_classification / ai_confidence and a person confirms it. The rules are
 * data (tables below) so that what makes an EOB an EOB can be read and argued about in one place;
 * docs/documents/document-processing.md restates them in prose.
 */

export type DicomTags = {
  /** (0008,0060), e.g. "IO" intraoral, "PX" panoramic, "CT", "DX". */
  modality: string | null;
  /** (0008,103E) */
  seriesDescription: string | null;
  /** (0008,1030) */
  studyDescription: string | null;
  /** (0018,0015) */
  bodyPartExamined: string | null;
  /** (0008,0008), multi-valued: ["ORIGINAL", "PRIMARY", ...]. */
  imageType: string[];
  /** (0018,5101) */
  viewPosition: string | null;
  /** (0028,0010) */
  rows: number | null;
  /** (0028,0011) */
  columns: number | null;
};

/** The header tags that identify a dental radiograph; null when the bytes are not parseable DICOM. */
export function dicomTags(bytes: Uint8Array): DicomTags | null {
  let dataSet: ReturnType<typeof parseDicom>;
  try {
    // Stop before Pixel Data: the header is all we need and the pixels can be tens of MB.
    dataSet = parseDicom(bytes, { untilTag: "x7fe00010" });
  } catch {
    return null;
  }
  const text = (tag: string): string | null => {
    const value = dataSet.string(tag)?.trim();
    return value ? value : null;
  };
  return {
    modality: text("x00080060")?.toUpperCase() ?? null,
    seriesDescription: text("x0008103e"),
    studyDescription: text("x00081030"),
    bodyPartExamined: text("x00180015"),
    imageType: (text("x00080008") ?? "")
      .split("\\")
      .map((part) => part.trim())
      .filter((part) => part.length > 0),
    viewPosition: text("x00185101"),
    rows: dataSet.uint16("x00280010") ?? null,
    columns: dataSet.uint16("x00280011") ?? null,
  };
}

export type ClassifyInput = {
  /** OCR or text-layer text; empty for radiographs. */
  text: string;
  /** The sniffed mime type. */
  mime: string;
  /** Pixel size after EXIF orientation (images only). */
  width?: number | null;
  height?: number | null;
  pageCount?: number | null;
  /** From imageInfo: the picture has no colour (radiographs). */
  greyscale?: boolean | null;
  dicomTags?: DicomTags | null;
};

export type Classification = {
  document_type: string | null;
  /** 0..1, 2 decimals; a rule-based guess is never reported above MAX_CONFIDENCE. */
  confidence: number;
  reasons: string[];
};

/** Below this the best guess is not proposed: document_type is null. */
export const MIN_CONFIDENCE = 0.35;
/** Keyword rules can be fooled (a letter quoting an EOB); they never claim certainty. */
export const MAX_CONFIDENCE = 0.95;

type Cue = {
  /** Matched against the text lower-cased with whitespace runs collapsed to one space. */
  pattern: RegExp;
  weight: number;
  reason: string;
  /** The rule does not apply at all unless this cue matches. */
  required?: boolean;
  /** How many matches are needed (the pattern must then have the g flag). Default 1. */
  minCount?: number;
};

type TextRule = {
  documentType: string;
  cues: Cue[];
  /** Cards carry few words: a long text that mentions a member ID is an EOB or a letter. */
  maxWords?: number;
  /** Added when an image has the shape of an ID-1 card (85.6 x 54 mm, ratio 1.586), either orientation. */
  cardShapeWeight?: number;
};

const CONSENT_WORDING: Cue = { pattern: /\bconsent\b|\bi (hereby )?authori[sz]e\b/, weight: 0.3, reason: "consent wording", required: true };
const RISKS: Cue = { pattern: /\brisks?\b|\bcomplications?\b/, weight: 0.15, reason: "risks explained" };
const YES_NO_ANSWERS: Cue = { pattern: /\b(yes|no|y\/n)\b/g, minCount: 6, weight: 0.2, reason: "yes/no questions" };
const CONDITIONS: Cue = {
  pattern:
    /\b(diabetes|heart (disease|attack|murmur|condition)|high blood pressure|hypertension|asthma|hepatitis|hiv|stroke|epilepsy|seizures?|cancer|kidney disease|pregnan(t|cy))\b/g,
  minCount: 2,
  weight: 0.2,
  reason: "medical conditions listed",
};
const MEDICATIONS: Cue = { pattern: /\bmedications?\b/, weight: 0.1, reason: "medications" };
const ALLERGIES: Cue = { pattern: /\ballerg(y|ies|ic)\b/, weight: 0.1, reason: "allergies" };
const CARRIER_NAMES =
  /\b(delta dental|metlife|cigna|aetna|guardian|united ?healthcare|humana|blue cross|blue shield|bcbs|anthem|ameritas|principal|sun life|united concordia|dentaquest|mcna|liberty dental|careington|geha|lincoln financial)\b/;

/** The text rules. A rule's score is the sum of its matched cue weights. */
export const TEXT_RULES: TextRule[] = [
  {
    documentType: "eob",
    cues: [
      { pattern: /\bexplanation of (dental )?benefits\b/, weight: 0.6, reason: '"explanation of benefits"' },
      { pattern: /\bthis is not a bill\b/, weight: 0.3, reason: '"this is not a bill"' },
      { pattern: /\bclaim\s*(#|no\.?|number|id)/, weight: 0.15, reason: "claim number" },
      { pattern: /\b(patient (responsibility|portion|pays)|you (may )?owe|amount you owe)\b/, weight: 0.15, reason: "patient responsibility" },
      { pattern: /\b(allowed amount|plan (paid|payment)|amount (billed|paid)|deductible)\b/, weight: 0.1, reason: "benefit amounts" },
    ],
  },
  {
    documentType: "insurance_card_front",
    maxWords: 80,
    cardShapeWeight: 0.2,
    cues: [
      {
        pattern: /\b(member|subscriber|enrollee|insured|identification)\s*(id|#|no\.?|number)|\bid\s*(#|no\.?|number)/,
        weight: 0.35,
        reason: "member/subscriber ID",
      },
      { pattern: /\bgroup\s*(#|no\.?|number|id)?\s*[:#]?\s*[a-z0-9-]*\d[a-z0-9-]*/, weight: 0.25, reason: "group number" },
      { pattern: CARRIER_NAMES, weight: 0.2, reason: "carrier name" },
      { pattern: /\b(ppo|dhmo|hmo|dental plan|effective date|coverage|dependents?)\b/, weight: 0.1, reason: "plan or coverage wording" },
    ],
  },
  {
    documentType: "insurance_card_back",
    maxWords: 120,
    cardShapeWeight: 0.2,
    cues: [
      { pattern: /\b(customer|member) services?\b/, weight: 0.3, reason: '"customer service"' },
      { pattern: /\b(send|submit|mail) (all )?claims\b|\bclaims? (address|to)\b/, weight: 0.25, reason: "claims address" },
      { pattern: /\bp\.?\s?o\.?\s*box\s*\d+/, weight: 0.15, reason: "P.O. box" },
      { pattern: /\(?\b\d{3}\)?[\s.-]\d{3}[\s.-]\d{4}\b/, weight: 0.15, reason: "phone number" },
      { pattern: /\b(providers?|dentists?)\b/, weight: 0.15, reason: "instructions to providers" },
      { pattern: /\bpayer\s*id\b|\bwww\.|\.com\b/, weight: 0.1, reason: "payer ID or website" },
    ],
  },
  {
    // Incoming, not outgoing: an uploaded referral letter was almost always written by someone else.
    documentType: "referral_letter_incoming",
    cues: [
      { pattern: /\breferral\b/, weight: 0.3, reason: '"referral"' },
      { pattern: /\bdear (doctor|dr\.?)\b/, weight: 0.25, reason: '"dear doctor"' },
      { pattern: /\b(referred (by|for|to)|referring|refer (my|our|this) patient)\b/, weight: 0.3, reason: '"referred by/for"' },
      {
        pattern: /\b(thank you for (seeing|your referral|evaluating)|please (see|evaluate)|for (evaluation|consultation))\b/,
        weight: 0.2,
        reason: "request to see the patient",
      },
      { pattern: /\b(sincerely|regards)\b/, weight: 0.05, reason: "letter closing" },
    ],
  },
  {
    documentType: "anesthesia_consent",
    cues: [
      CONSENT_WORDING,
      {
        pattern: /\b(an(a)?esthe(sia|tic)|sedation|sedative|nitrous oxide)\b/,
        weight: 0.4,
        reason: "anesthesia or sedation",
        required: true,
      },
      RISKS,
      { pattern: /\b(nothing by mouth|npo|escort|drive)\b/, weight: 0.15, reason: "sedation instructions" },
    ],
  },
  {
    documentType: "procedure_consent",
    cues: [
      CONSENT_WORDING,
      {
        pattern: /\b(extractions?|root canal|endodontic|implants?|crowns?|bridges?|periodontal surgery|bone graft|wisdom teeth|third molars?)\b/,
        weight: 0.3,
        reason: "a named procedure",
        required: true,
      },
      RISKS,
      { pattern: /\balternatives?\b/, weight: 0.1, reason: "alternatives explained" },
    ],
  },
  {
    documentType: "general_consent",
    cues: [
      CONSENT_WORDING,
      { pattern: /\b(consent (to|for) (dental )?(treatment|care|examination)|general consent)\b/, weight: 0.35, reason: "consent to treatment" },
      { pattern: /\b(examinations?|x-?rays|radiographs|cleanings?|routine)\b/, weight: 0.15, reason: "routine care named" },
      RISKS,
    ],
  },
  {
    documentType: "medical_history",
    cues: [{ pattern: /\bmedical history\b/, weight: 0.4, reason: '"medical history"' }, YES_NO_ANSWERS, CONDITIONS, MEDICATIONS, ALLERGIES],
  },
  {
    documentType: "health_questionnaire",
    cues: [
      { pattern: /\b(health (questionnaire|screening)|questionnaire)\b/, weight: 0.4, reason: '"questionnaire"' },
      YES_NO_ANSWERS,
      CONDITIONS,
      MEDICATIONS,
    ],
  },
  {
    documentType: "lab_prescription",
    cues: [
      {
        pattern: /\b(lab(oratory)? (prescription|slip|order|rx|work order)|work authori[sz]ation|dental lab(oratory)?)\b/,
        weight: 0.35,
        reason: "lab prescription heading",
      },
      { pattern: /\bshade\b/, weight: 0.2, reason: '"shade"' },
      { pattern: /\b(rx|prescription)\b/, weight: 0.1, reason: '"rx" / "prescription"' },
      { pattern: /\b(crown|bridge|denture|partial|night ?guard|veneer|inlay|onlay|abutment)\b/, weight: 0.15, reason: "a lab-made restoration" },
      { pattern: /\b(zirconia|e\.?max|pfm|porcelain|full cast|lithium disilicate|noble|base metal)\b/, weight: 0.15, reason: "restoration material" },
      { pattern: /\b(due date|return date|date (needed|due)|delivery date|try-?in)\b/, weight: 0.2, reason: "due date" },
    ],
  },
];

type ImageFeatures = { aspect: number; longerSide: number; greyscale: boolean; words: number };

type ImageRule = { documentType: string; weight: number; reason: string; applies: (image: ImageFeatures) => boolean };

/**
 * Radiographs exported as plain images: no text, no colour, and a shape. Weak evidence (a
 * greyscale 4:3 photo matches too), hence the modest weights. Intraoral sensors are ~4:3;
 * bitewings are taken landscape, anterior periapicals portrait (posterior ones landscape too).
 */
export const IMAGE_RULES: ImageRule[] = [
  {
    documentType: "panoramic",
    weight: 0.6,
    reason: "greyscale, wide (>= 1.8:1) and large: panoramic shape",
    applies: (image) => image.greyscale && image.words < 15 && image.aspect >= 1.8 && image.longerSide >= 1000,
  },
  {
    documentType: "bitewing",
    weight: 0.45,
    reason: "greyscale, landscape ~4:3, sensor-sized: bitewing shape",
    applies: (image) => image.greyscale && image.words < 15 && image.aspect >= 1.15 && image.aspect <= 1.5 && image.longerSide <= 2000,
  },
  {
    documentType: "periapical",
    weight: 0.45,
    reason: "greyscale, portrait ~3:4, sensor-sized: periapical shape",
    applies: (image) => image.greyscale && image.words < 15 && image.aspect >= 0.66 && image.aspect <= 0.87 && image.longerSide <= 2000,
  },
];

type DicomRule = { documentType: string; confidence: number; reason: string; applies: (modality: string, descriptors: string) => boolean };

/**
 * DICOM decision list, first match wins. `descriptors` joins SeriesDescription, StudyDescription,
 * BodyPartExamined, ImageType and ViewPosition, lower-cased.
 */
export const DICOM_RULES: DicomRule[] = [
  { documentType: "panoramic", confidence: 0.95, reason: "DICOM Modality PX (panoramic)", applies: (modality) => modality === "PX" },
  {
    documentType: "bitewing",
    confidence: 0.9,
    reason: "DICOM Modality IO, described as bitewing",
    applies: (modality, text) => modality === "IO" && /\b(bw|bwx|bite-?wings?)\b/.test(text),
  },
  {
    documentType: "periapical",
    confidence: 0.9,
    reason: "DICOM Modality IO, described as periapical",
    applies: (modality, text) => modality === "IO" && /\b(pa|pax|peri-?apical)\b/.test(text),
  },
  {
    documentType: "cephalometric",
    confidence: 0.85,
    reason: "DICOM described as cephalometric",
    applies: (_modality, text) => /\bceph(alometric|alogram)?\b/.test(text),
  },
  {
    documentType: "panoramic",
    confidence: 0.85,
    reason: "DICOM described as panoramic",
    applies: (modality, text) => modality !== "IO" && /\b(pan|panoramic|panorex|opg|orthopantomogra\w*)\b/.test(text),
  },
  { documentType: "cbct", confidence: 0.7, reason: "DICOM Modality CT (in a dental practice: cone-beam CT)", applies: (modality) => modality === "CT" },
  {
    documentType: "periapical",
    confidence: 0.5,
    reason: "DICOM Modality IO without a view: periapical is the commonest intraoral view",
    applies: (modality) => modality === "IO",
  },
];

const CARD_ASPECT = 85.6 / 54;
const CARD_ASPECT_TOLERANCE = 0.15;

function countMatches(pattern: RegExp, text: string): number {
  if (!pattern.global) return pattern.test(text) ? 1 : 0;
  return text.match(pattern)?.length ?? 0;
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

type Candidate = { documentType: string; score: number; reasons: string[] };

function scoreTextRule(rule: TextRule, text: string, words: number, cardShape: string | null): Candidate | null {
  if (rule.maxWords !== undefined && words > rule.maxWords) return null;
  let score = 0;
  const reasons: string[] = [];
  for (const cue of rule.cues) {
    const matched = countMatches(cue.pattern, text) >= (cue.minCount ?? 1);
    if (!matched && cue.required) return null;
    if (matched) {
      score += cue.weight;
      reasons.push(cue.reason);
    }
  }
  if (score === 0) return null;
  if (rule.cardShapeWeight !== undefined && cardShape !== null) {
    score += rule.cardShapeWeight;
    reasons.push(cardShape);
  }
  return { documentType: rule.documentType, score, reasons };
}

function cardShapeReason(input: ClassifyInput): string | null {
  if (!input.mime.startsWith("image/") || !input.width || !input.height) return null;
  const ratio = Math.max(input.width, input.height) / Math.min(input.width, input.height);
  return Math.abs(ratio - CARD_ASPECT) <= CARD_ASPECT_TOLERANCE ? `card aspect ratio ${ratio.toFixed(2)}` : null;
}

function dicomCandidate(tags: DicomTags): Candidate | null {
  const modality = (tags.modality ?? "").toUpperCase();
  const descriptors = [tags.seriesDescription, tags.studyDescription, tags.bodyPartExamined, tags.imageType.join(" "), tags.viewPosition]
    .filter((part): part is string => part !== null)
    .join(" ")
    .toLowerCase()
    .replace(/[_\\/]+/g, " ");
  const rule = DICOM_RULES.find((candidate) => candidate.applies(modality, descriptors));
  return rule ? { documentType: rule.documentType, score: rule.confidence, reasons: [rule.reason] } : null;
}

/** Proposes a document_type from the document's text, its kind and, for images and DICOM, its shape and tags. */
export function classifyDocument(input: ClassifyInput): Classification {
  const text = input.text.toLowerCase().replace(/\s+/g, " ").trim();
  const words = text.match(/[a-z0-9]{2,}/g)?.length ?? 0;
  const candidates: Candidate[] = [];

  if (input.dicomTags) {
    const fromTags = dicomCandidate(input.dicomTags);
    if (fromTags) candidates.push(fromTags);
  }

  const cardShape = cardShapeReason(input);
  for (const rule of TEXT_RULES) {
    const candidate = scoreTextRule(rule, text, words, cardShape);
    if (candidate) candidates.push(candidate);
  }

  if (input.mime.startsWith("image/") && input.width && input.height) {
    const image: ImageFeatures = {
      aspect: input.width / input.height,
      longerSide: Math.max(input.width, input.height),
      greyscale: input.greyscale === true,
      words,
    };
    for (const rule of IMAGE_RULES) {
      if (rule.applies(image)) candidates.push({ documentType: rule.documentType, score: rule.weight, reasons: [rule.reason] });
    }
  }

  // Stable sort: on equal scores the earlier table entry wins.
  candidates.sort((a, b) => b.score - a.score);
  const best = candidates[0];
  if (!best) return { document_type: null, confidence: 0, reasons: ["no rule matched"] };
  const confidence = round2(Math.min(MAX_CONFIDENCE, best.score));
  if (best.score < MIN_CONFIDENCE) {
    return {
      document_type: null,
      confidence,
      reasons: [`best guess ${best.documentType} (${best.reasons.join(", ")}) is below ${MIN_CONFIDENCE}`],
    };
  }
  return { document_type: best.documentType, confidence, reasons: best.reasons };
}
