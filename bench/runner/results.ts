// Writes the report to bench/results/latest.md and latest.json, and prints it.

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BENCH } from "./settings";

export function writeResults(md: string, json: unknown) {
  mkdirSync(join(BENCH, "results"), { recursive: true });
  writeFileSync(join(BENCH, "results", "latest.md"), md);
  writeFileSync(join(BENCH, "results", "latest.json"), JSON.stringify(json, null, 2) + "\n");
  console.log("\n" + md);
  console.log("written to bench/results/latest.json and bench/results/latest.md");
}
