// `npm run fuzz -- --requests 20000 --seed N [--only REGEX] [--per-operation] [--out FILE]`:
// a long OpenAPI-driven fuzz run against an in-process app on a temporary data
// directory (tests/support/fuzz/). Prints a summary; exits 1 when any oracle failed.
import { writeFileSync } from "node:fs";
import { Fuzzer, explain, summary } from "@tests/support/fuzz/runner";

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  if (i >= 0) return process.argv[i + 1];
  const eq = process.argv.find((a) => a.startsWith(`--${name}=`));
  return eq?.slice(name.length + 3);
}

process.env.LOG_LEVEL ??= "silent";
const seed = Number(arg("seed") ?? Math.floor(Math.random() * 2 ** 31));
const requests = Number(arg("requests") ?? 20_000);
const only = arg("only");
if (!Number.isInteger(seed) || !Number.isInteger(requests) || requests < 1) {
  console.error("usage: npm run fuzz -- [--requests N] [--seed N] [--only REGEX] [--per-operation] [--out FILE]");
  process.exit(2);
}

console.log(
  `fuzz: seed ${seed}, ${requests} requests${only ? `, operations matching ${only}` : ""} (replay: npm run fuzz -- --requests ${requests} --seed ${seed})`,
);
const started = performance.now();
const fuzzer = await Fuzzer.start(seed);
console.log(`fixture ready in ${((performance.now() - started) / 1000).toFixed(1)} s (${fuzzer.stats.seedRequests} set-up requests)`);
try {
  await fuzzer.run({
    seed,
    requests,
    only: only ? new RegExp(only) : undefined,
    progress: (done) => console.log(`  ${done} requests, ${fuzzer.stats.failures.length} failing`),
  });
} finally {
  await fuzzer.close();
}
console.log(summary(fuzzer.stats, { perOperation: process.argv.includes("--per-operation") }));
console.log(`wall time ${((performance.now() - started) / 1000).toFixed(1)} s`);
const out = arg("out");
if (out) {
  writeFileSync(
    out,
    JSON.stringify(
      fuzzer.stats.failures.map((f) => ({
        explain: explain(f, seed),
        index: f.req.index,
        method: f.req.method,
        url: f.req.url,
        headers: f.req.headers,
        body: f.req.body && f.req.body.length > 4096 ? `${f.req.body.slice(0, 4096)}…` : f.req.body,
        status: f.answer.status,
        answer: f.answer.text.slice(0, 2000),
        findings: f.findings,
      })),
      null,
      1,
    ),
  );
  console.log(`failures written to ${out}`);
}
process.exit(fuzzer.stats.failures.length ? 1 : 0);
