// docs/getting-started.md is run as written, against a started service.
//
// Which blocks run: fenced code blocks whose info string is `sh test` or
// `ts test` (GitHub highlights them by the first word and ignores the rest).
// Plain ```sh / ```ts blocks are prose (the install command, the endless event
// stream) and are not run.
//
// - The `sh test` blocks, in order, are one bash script (`set -euo pipefail`, so
//   a failing step fails the test), with BASE set to the service's address (the
//   doc reads `${BASE:-http://localhost:3000}`).
// - The `ts test` blocks, in order, are one file written into the repository's
//   root (where the doc tells the reader to save it, so `./clients/typescript`
//   resolves), run with bun and BASE set, and deleted afterwards. It is also
//   type-checked with tsc against the generated client types.
//
// Each path must end by printing "Booked <uuid> for <start>: scheduled"; the
// test then reads that appointment back through the API.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer, type ServerProcess } from "@tests/support/server-process";

const root = join(import.meta.dir, "../..");
const doc = readFileSync(join(root, "docs/getting-started.md"), "utf8");

/** The bodies of the blocks fenced as ```<lang> test, in order. */
function blocks(lang: "sh" | "ts"): string[] {
  return [...doc.matchAll(new RegExp(`^\`\`\`${lang} test\\n([\\s\\S]*?)^\`\`\`$`, "gm"))].map((m) => m[1]!);
}

const BOOKED = /^Booked ([0-9a-f-]{36}) for (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00): scheduled$/m;

let server: ServerProcess;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "cusp-getting-started-"));
  server = await startServer(dataDir);
}, 60_000);

afterAll(async () => {
  await server?.kill("SIGTERM");
  rmSync(dataDir, { recursive: true, force: true });
});

/** Reads the appointment back as the admin, finding its org by slug. */
async function readBack(slug: string, id: string) {
  const login = await fetch(`${server.base}/api/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "admin@example.com", password: "admin-password" }),
  });
  const auth = { authorization: `Bearer ${((await login.json()) as { access_token: string }).access_token}` };
  const orgs = (await (await fetch(`${server.base}/api/v1/admin/orgs?page_size=100`, { headers: auth })).json()) as { items: { id: string; slug: string }[] };
  const org = orgs.items.find((o) => o.slug === slug)!;
  const res = await fetch(`${server.base}/api/v1/${org.id}/appointments/${id}`, { headers: auth });
  expect(res.status).toBe(200);
  return (await res.json()) as { uuid: string; status: string; scheduled_start: string; patient: { last_name: string } };
}

async function run(cmd: string[], env: Record<string, string> = {}) {
  const proc = Bun.spawn(cmd, { cwd: root, env: { PATH: process.env.PATH!, BASE: server.base, ...env }, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { out, err, code };
}

describe("docs/getting-started.md", () => {
  test("the curl path ends with a booked appointment", async () => {
    const script = blocks("sh");
    expect(script.length).toBeGreaterThanOrEqual(5);
    const r = await run(["bash", "-c", `set -euo pipefail\n${script.join("\n")}`]);
    expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: "" });
    const [, id, start] = r.out.match(BOOKED) ?? [];
    expect(id).toBeDefined();
    const appt = await readBack("bright-smiles", id!);
    expect(appt).toMatchObject({ uuid: id, status: "scheduled", scheduled_start: start, patient: { last_name: "Martinez" } });
    // the first free slot: a weekday at 08:00, the start of the working hours
    expect(start!.endsWith("T08:00:00")).toBe(true);
  }, 60_000);

  test("the typed client path type-checks and ends with a booked appointment", async () => {
    const source = blocks("ts");
    expect(source.length).toBeGreaterThanOrEqual(1);
    const name = `.getting-started-${process.pid}-${Date.now().toString(36)}`;
    const file = join(root, `${name}.ts`);
    const tsconfig = join(root, `${name}.tsconfig.json`);
    try {
      writeFileSync(file, source.join("\n"));
      writeFileSync(tsconfig, JSON.stringify({ extends: "./tsconfig.json", include: [`${name}.ts`] }));
      const check = await run([join(root, "node_modules/.bin/tsc"), "--noEmit", "-p", tsconfig]);
      expect({ code: check.code, out: check.out }).toEqual({ code: 0, out: "" });

      const r = await run([process.execPath, "run", file]);
      expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: "" });
      const [, id, start] = r.out.match(BOOKED) ?? [];
      expect(id).toBeDefined();
      const appt = await readBack("sunny-side", id!);
      expect(appt).toMatchObject({ uuid: id, status: "scheduled", scheduled_start: start, patient: { last_name: "Chen" } });
      expect(start!.endsWith("T08:00:00")).toBe(true);
    } finally {
      rmSync(file, { force: true });
      rmSync(tsconfig, { force: true });
    }
  }, 90_000);
});
