// Row (m1): many orgs on one instance. One org is made through the API and
// loaded with patients straight into SQLite (as the 100,000-patient org is);
// its database file is then copied for every other org, and their rows are
// written into the control database directly, so 500 orgs cost seconds.
import { Database } from "bun:sqlite";
import { copyFileSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { loadPatients, rng, type LoadedPatient } from "./patients";

export type ManyOrgs = { orgs: string[]; patients: LoadedPatient[]; loadMs: number; copyMs: number };

/** `count` orgs of `perOrg` patients each (the same patients in each: the copies of one file). */
export function buildManyOrgs(dataDir: string, templateOrg: string, templateFile: string, count: number, perOrg: number): ManyOrgs {
  const loaded = loadPatients(templateFile, perOrg, 99);
  const t0 = performance.now();
  const control = new Database(join(dataDir, "control.db"));
  control.exec("PRAGMA busy_timeout = 10000");
  const template = control.query("SELECT * FROM orgs WHERE id = ?").get(templateOrg) as Record<string, unknown>;
  if (!template) throw new Error(`org ${templateOrg} is not in the control database`);
  const columns = Object.keys(template);
  const insert = control.prepare(`INSERT INTO orgs (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`);
  const orgs: string[] = [];
  const dir = dirname(templateFile);
  control.transaction(() => {
    for (let i = 0; i < count - 1; i++) {
      const id = Bun.randomUUIDv7();
      copyFileSync(templateFile, join(dir, `${id}.db`));
      const row: Record<string, unknown> = {
        ...template,
        id,
        name: `Bench many ${i}`,
        slug: `bench-many-${i}-${id.slice(-12)}`,
        schema_name: `org_${id.replaceAll("-", "")}`,
      };
      insert.run(...(columns.map((c) => row[c]) as never[]));
      orgs.push(id);
    }
  })();
  control.close();
  return { orgs: [templateOrg, ...orgs], patients: loaded.patients, loadMs: loaded.ms, copyMs: performance.now() - t0 };
}

/** `n` request paths, each a random org's random patient. */
export function manyOrgPaths(m: ManyOrgs, n: number, seed = 5): string[] {
  const random = rng(seed);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const org = m.orgs[Math.floor(random() * m.orgs.length)]!;
    const p = m.patients[Math.floor(random() * m.patients.length)]!;
    out.push(`/api/v1/${org}/patients/${p.id}`);
  }
  return out;
}

/** The server's resident memory (MB) and open file descriptors, from /proc. */
export function processFootprint(pid: number): { rss_mb: number; open_files: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return { rss_mb: Math.round(kb / 1024), open_files: readdirSync(`/proc/${pid}/fd`).length };
}
