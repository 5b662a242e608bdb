import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

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
