import type { OrgSeed } from "./seed";
import { definitionSeed } from "./definitions";
import { procedureCodeSeed } from "./procedure-codes";
import { icdCodeSeed } from "./icd-codes";
import { autoCodeSeed } from "./auto-codes";
import { odontogramToolSeed } from "./odontogram-tools";
import { coverageCategorySeed } from "./coverage-categories";
import { recallSeed } from "./recall";

/** Every seed, in order: later seeds may read what earlier ones wrote (the seed model: ./seed.ts). */
export const ORG_SEEDS: readonly OrgSeed[] = [
  definitionSeed,
  procedureCodeSeed,
  icdCodeSeed,
  autoCodeSeed,
  odontogramToolSeed,
  coverageCategorySeed,
  recallSeed,
];
