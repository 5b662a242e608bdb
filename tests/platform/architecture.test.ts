import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";

// The structure docs/architecture.md describes, checked on the source text:
// a rule broken here is a mechanism being written again outside its one place.

const ROOT = join(import.meta.dir, "../..");

function filesUnder(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(join(ROOT, dir))) {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) filesUnder(path, out);
    else if (path.endsWith(".ts")) out.push(path);
  }
  return out;
}

const source = (path: string) => readFileSync(join(ROOT, path), "utf8");
const CODE = ["src", "db", "workers", "tests", "bench", "scripts"].flatMap((d) => filesUnder(d));
const DOMAINS = filesUnder("src/domains");
/** The names a file imports from `module` (whole statements, also when they span lines). */
const importedFrom = (file: string, module: string) =>
  [...source(file).matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s*from\s*"([^"]+)"/g)]
    .filter((m) => m[2] === module)
    .flatMap((m) =>
      m[1]!
        .split(",")
        .map((n) => n.replace(/^\s*type\s+/, "").trim())
        .filter(Boolean),
    );

const COMMENT = /^\s*(\/\/|\*|\/\*)/;
/** `path:line` of each code line (comments left out) of `files` matching `pattern`. */
const where = (files: string[], pattern: RegExp) =>
  files.flatMap((f) =>
    source(f)
      .split("\n")
      .flatMap((line, i) => (!COMMENT.test(line) && pattern.test(line) ? [`${f}:${i + 1}`] : [])),
  );

describe("layout", () => {
  test("every spec domain folder lists its route modules in an index.ts, and routes are declared only in routes.ts files", () => {
    const domains = readdirSync(join(ROOT, "src/domains")).filter((d) => statSync(join(ROOT, "src/domains", d)).isDirectory());
    expect(domains.sort()).toEqual([
      "account",
      "admin",
      "auth",
      "clinical",
      "codes",
      "documents",
      "iam",
      "insurance",
      "odontogram",
      "patients",
      "platform-admin",
      "providers",
      "recall",
      "referrals",
      "revenue",
      "scheduling",
      "system",
    ]);
    expect(domains.filter((d) => !existsSync(join(ROOT, "src/domains", d, "index.ts")))).toEqual([]);
    expect(
      where(
        DOMAINS.filter((f) => !f.endsWith("/routes.ts")),
        /new Elysia\(/,
      ),
    ).toEqual([]);
  });

  test("tests mirror src/domains: each test folder names a feature folder that exists", () => {
    const testDirs = [...new Set(filesUnder("tests/domains").map((f) => relative("tests/domains", f).split("/").slice(0, -1).join("/")))];
    expect(testDirs.filter((d) => !existsSync(join(ROOT, "src/domains", d)))).toEqual([]);
  });

  test("imports: ./ for the same folder or below, a root alias (@/, @db/, @workers/, @tests/, @scripts/, @clients/, @bench/) for anything else; never ../", () => {
    expect(where(CODE, /(from|import)\s*\(?\s*["']\.\.\//)).toEqual([]);
  });

  test("starter data (db/seeds) does not depend on the domains", () => {
    expect(where(filesUnder("db"), /from ["']@\/domains\//)).toEqual([]);
  });
});

describe("tenancy", () => {
  test("verbs never get the whole runtime: outside routes.ts, domain files and job definitions take PlatformRuntime or an OrgContext", () => {
    const verbs = [...DOMAINS.filter((f) => !f.endsWith("/routes.ts") && !f.endsWith("/index.ts")), ...filesUnder("workers/jobs")];
    expect(verbs.filter((f) => importedFrom(f, "@/platform/runtime").includes("Runtime"))).toEqual([]);
    // the rule sees what it should: routes import Runtime, verbs PlatformRuntime
    expect(importedFrom("src/domains/admin/routes.ts", "@/platform/runtime")).toEqual(["Runtime"]);
    expect(importedFrom("src/domains/admin/service.ts", "@/platform/runtime")).toEqual(["PlatformRuntime"]);
  });

  test("org databases are opened by id only in src/platform (the guard and tenancy/orgs.ts)", () => {
    expect(where([...DOMAINS, ...filesUnder("workers")], /\borgDbs\b/)).toEqual([]);
  });

  test("the org-scoped control tables are queried only by the IAM repository, access resolution, provisioning, sign-in and platform groups", () => {
    // platform groups are permission_groups rows with no org (every query there filters org_id IS NULL)
    const allowed = new Set([
      "src/domains/iam/repository.ts",
      "src/domains/iam/access/repository.ts",
      "src/domains/admin/service.ts",
      "src/domains/auth/invite.ts",
      "src/domains/auth/me.ts",
      "src/domains/platform-admin/groups/service.ts",
    ]);
    expect(
      where(
        DOMAINS.filter((f) => !allowed.has(f)),
        /\b(memberships|iamAssignments|iamApprovals|permissionGroups)\b/,
      ),
    ).toEqual([]);
  });
});

describe("one mechanism each, in src/platform", () => {
  test("version checks: no VersionConflict is thrown outside src/platform", () => {
    expect(where(DOMAINS, /new VersionConflict\(/)).toEqual([]);
  });

  test("paging: limit and offset are applied by pageFrom / records.list, except the patient list planner (index walks with its own offset)", () => {
    expect(
      where(
        DOMAINS.filter((f) => f !== "src/domains/patients/record/list.ts"),
        /\boffsetOf\b|\.offset\(/,
      ),
    ).toEqual([]);
  });

  test("references: no local ref or id-to-name lookup", () => {
    expect(where(DOMAINS, /(const|function\*?) (ref|namesOf|namesFor)\b/)).toEqual([]);
  });

  test("events: verbs queue events with emit and never reach into the queue", () => {
    expect(where(DOMAINS, /after\.events/)).toEqual([]);
  });

  test("constraint errors: no service matches database error text", () => {
    expect(where(DOMAINS, /constraint failed|\.message\)?\.includes\(|SQLITE_CONSTRAINT/)).toEqual([]);
  });
});

/** `domain -> [domains it imports]` from the import statements of src/domains (static and dynamic). */
function domainImports(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const f of DOMAINS) {
    const from = f.split("/")[2]!;
    for (const m of source(f).matchAll(/(?:from\s*|import\s*\(\s*)"@\/domains\/([a-z-]+)\//g)) {
      if (m[1] === from) continue;
      graph.set(from, (graph.get(from) ?? new Set()).add(m[1]!));
    }
  }
  return graph;
}

describe('jobs and moments (docs/architecture.md, "Jobs" and "Moments")', () => {
  test("no domain imports workers/: jobs are defined, queued and run by src/platform/queue; workers/registry.ts only lists them", () => {
    expect(where(DOMAINS, /from ["']@workers\//)).toEqual([]);
    expect(where(filesUnder("src/platform"), /from ["']@workers\/|from ["']@\/domains\//)).toEqual([]);
  });

  test("a job reaches the queue only through platform/queue/enqueue.ts (queueJob in a write, enqueue outside one)", () => {
    const code = [...filesUnder("src"), ...filesUnder("workers")].filter((f) => !f.startsWith("src/platform/queue/"));
    expect(where(code, /after\.jobs\.push|\bqueue\.send\(|\.queue\.send\(/)).toEqual([]);
  });

  test("a domain reacts to another's moment through its reactions.ts, never by being imported: the announcing domain imports nothing of the listening one", () => {
    const graph = domainImports();
    const broken: string[] = [];
    for (const file of DOMAINS.filter((f) => /^src\/domains\/[a-z-]+\/reactions\.ts$/.test(f))) {
      const listener = file.split("/")[2]!;
      for (const m of source(file).matchAll(/from\s*"@\/domains\/([a-z-]+)\/([^"]+)"/g)) {
        if (m[1] === listener) continue;
        if (!m[2]!.endsWith("moments")) broken.push(`${file} imports @/domains/${m[1]}/${m[2]} (a reaction imports only another domain's moments)`);
        if (graph.get(m[1]!)?.has(listener)) broken.push(`${m[1]} announces moments ${listener} reacts to, and imports ${listener}`);
      }
    }
    expect(broken).toEqual([]);
    // the rule sees what it should: insurance reacts to clinical's moments
    expect(graph.get("insurance")?.has("clinical")).toBe(true);
    expect(graph.get("clinical")?.has("insurance") ?? false).toBe(false);
  });

  test("no domain queues another domain's job (that is a reaction by import): *.job.ts and jobs.ts are imported within their domain only", () => {
    expect(
      where(DOMAINS, /from ["']@\/domains\/[a-z-]+\/[^"']*(\.job|\/jobs)["']/).filter((hit) => {
        const [file, line] = hit.split(":");
        const text = source(file!).split("\n")[Number(line) - 1]!;
        return !text.includes(`@/domains/${file!.split("/")[2]}/`);
      }),
    ).toEqual([]);
  });

  test("every moment is announced somewhere, and docs/architecture.md names every moment and every reaction", async () => {
    const { REACTIONS } = await import("@/reactions");
    const defined = DOMAINS.flatMap((f) =>
      [...source(f).matchAll(/export const (\w+) = defineMoment(?:<[^(]*>)?\(\s*"([^"]+)"/g)].map((m) => ({ file: f, name: m[1]!, moment: m[2]! })),
    );
    expect(defined.length).toBeGreaterThan(5);
    const announced = new Set(DOMAINS.flatMap((f) => [...source(f).matchAll(/announce\(s, (\w+)/g)].map((m) => m[1]!)));
    // appointment statuses are announced through a table (appointments/status.ts STATUS_MOMENTS)
    const tabled = new Set([...source("src/domains/scheduling/appointments/status.ts").matchAll(/^\s+\w+: (\w+),$/gm)].map((m) => m[1]!));
    expect(defined.filter((d) => !announced.has(d.name) && !tabled.has(d.name)).map((d) => d.moment)).toEqual([]);
    const doc = source("docs/architecture.md");
    expect(defined.filter((d) => !doc.includes(`\`${d.moment}\``)).map((d) => d.moment)).toEqual([]);
    const listeners = [...REACTIONS.values()].flat().map((r) => r.by);
    expect(listeners.filter((by) => !doc.includes(`\`${by}\``))).toEqual([]);
  });
});

describe("docs (laid out like the code)", () => {
  const docs = (dir = "docs", out: string[] = []): string[] => {
    for (const name of readdirSync(join(ROOT, dir))) {
      const path = join(dir, name);
      if (statSync(join(ROOT, path)).isDirectory()) docs(path, out);
      else if (path.endsWith(".md")) out.push(path);
    }
    return out;
  };

  test("every relative link in README.md, docs/ and bench/README.md leads to a file that exists", () => {
    const broken: string[] = [];
    for (const file of ["README.md", "bench/README.md", "clients/typescript/README.md", ...docs()]) {
      for (const m of source(file).matchAll(/\]\(([^)\s#]+)(#[^)]*)?\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/.test(target)) continue;
        if (!existsSync(join(ROOT, dirname(file), target))) broken.push(`${file}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  test("docs/README.md lists every document; docs/<folder>/ names a domain of src/domains, platform/ or operations/", () => {
    const index = source("docs/README.md");
    expect(docs().filter((f) => f !== "docs/README.md" && !index.includes(`](${relative("docs", f)})`))).toEqual([]);
    const folders = readdirSync(join(ROOT, "docs")).filter((d) => statSync(join(ROOT, "docs", d)).isDirectory());
    expect(folders.filter((d) => !["platform", "operations"].includes(d) && !existsSync(join(ROOT, "src/domains", d)))).toEqual([]);
  });

  test("a path to a document in code or docs names one that exists", () => {
    const mentioned = [...CODE, "README.md", ...docs()].flatMap((f) => [...source(f).matchAll(/\bdocs\/[a-z0-9/-]+\.md\b/g)].map((m) => `${f}: ${m[0]}`));
    expect(mentioned.filter((hit) => !existsSync(join(ROOT, hit.split(": ")[1]!)))).toEqual([]);
  });
});
