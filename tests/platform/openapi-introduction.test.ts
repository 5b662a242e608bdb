// The reference teaches the API (docs/system/api-reference-document.md, "Introduction"):
// info.description, which /docs opens on, covers each convention with a curl
// example, and what it states is checked against the code: the error codes it
// lists are the codes the code uses, its curl examples call documented
// operations, its numbers are the service's defaults. Every tag describes its area.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { startTestApp, type TestApp } from "@tests/helpers";
import { loadConfig } from "@/config";
import { KEEP_ALIVE_MS } from "@/domains/system/stream";

const SRC = join(import.meta.dir, "../../src");

/** The topics the introduction must cover, as its `##` headings. */
const TOPICS = [
  "Signing in and refreshing tokens",
  "The organization in the path",
  "Errors",
  "Paging",
  "Versions, base_version and ETag",
  "Soft delete and archive",
  "Idempotency-Key",
  "Rate limits",
  "The event stream",
  "Money and time",
];

let t: TestApp;
let doc: any;
let intro: string;

beforeAll(async () => {
  t = await startTestApp();
  doc = (await t.request("GET", "/openapi.json")).body;
  intro = doc.info.description;
});
afterAll(() => t.close());

/** The introduction's `##` sections: heading -> text (its `###` subsections included). */
function sections(text: string): Map<string, string> {
  const out = new Map<string, string>();
  let current: string | null = null;
  for (const line of text.split("\n")) {
    const h = /^## (.+)$/.exec(line);
    if (h) out.set((current = h[1]!.trim()), "");
    else if (current) out.set(current, `${out.get(current)}${line}\n`);
  }
  return out;
}

describe("info.description, the introduction", () => {
  test("covers every topic under its own heading, each with a curl example", () => {
    const found = sections(intro);
    expect([...found.keys()]).toEqual(expect.arrayContaining(TOPICS));
    const withoutExample = TOPICS.filter((topic) => !/```sh\n[^`]*\bcurl\b[^`]*```/.test(found.get(topic) ?? ""));
    expect(withoutExample).toEqual([]);
    expect(intro).toContain("### Error codes");
  });

  test("its curl examples call operations of this document", () => {
    const templates = Object.entries(doc.paths as Record<string, Record<string, unknown>>).map(([path, item]) => ({
      re: new RegExp(`^${path.replace(/\{[^}]+\}/g, "[^/]+")}$`),
      methods: Object.keys(item).map((m) => m.toUpperCase()),
    }));
    const calls: string[] = [];
    for (const [, block] of intro.matchAll(/```sh\n([^`]*)```/g)) {
      const commands = block!.replace(/\\\n/g, " ").split("\n");
      for (const command of commands) {
        for (const curl of command.split(/(?=\bcurl\s)/).filter((c) => c.startsWith("curl"))) {
          const path = /localhost:3000(\/[^\s"'?]*)/.exec(curl)?.[1];
          if (!path) continue;
          const method = /-X\s+([A-Z]+)/.exec(curl)?.[1] ?? (/\s-d\s/.test(curl) ? "POST" : "GET");
          calls.push(`${method} ${path}`);
        }
      }
    }
    expect(calls.length).toBeGreaterThan(15);
    const unknown = calls.filter((call) => {
      const [method, path] = call.split(" ") as [string, string];
      return !templates.some((tpl) => tpl.re.test(path) && tpl.methods.includes(method));
    });
    expect(unknown).toEqual([]);
  });

  test("lists exactly the error codes the code uses, each with its status", () => {
    const listed = listedCodes(intro);
    const used = usedCodes();
    expect(used.unresolved).toEqual([]);
    expect([...listed].sort()).toEqual([...used.pairs].sort());
  });

  test("the numbers it states are the service's defaults", () => {
    const config = loadConfig({});
    const text = sections(intro);
    expect(config.accessTokenTtl).toBe(900);
    expect(text.get("Signing in and refreshing tokens")).toContain("900 by default");
    const { read, write, upload, auth, addressFactor } = config.rateLimits;
    const limits = text.get("Rate limits")!;
    expect(limits).toContain(
      `burst ${read.burst} reads and keep up ${read.rate} a second, ${write.burst} writes at ${write.rate} a second and ${upload.burst} uploads at ${upload.rate} a second`,
    );
    expect(limits).toContain(`routes ${auth.burst} at ${auth.rate} a second per address`);
    expect(addressFactor).toBe(10);
    expect(limits).toContain("an address ten times that");
    expect(text.get("The event stream")).toContain(`every ${KEEP_ALIVE_MS / 1000} seconds`);
    const page = doc.paths["/api/v1/{org_id}/locations"].get.parameters.find((p: { name: string }) => p.name === "page_size").schema;
    expect(text.get("Paging")).toContain(`default ${page.default}, at most ${page.maximum}`);
    expect(text.get("Idempotency-Key")).toContain(`at most ${doc.components.parameters.IdempotencyKey.schema.maxLength} characters`);
  });
});

describe("tags", () => {
  test("every tag describes its area in more than a few words", () => {
    const tags = doc.tags as { name: string; description?: string }[];
    expect(tags.length).toBeGreaterThan(20);
    const thin = tags.filter(({ name, description }) => {
      const d = (description ?? "").trim();
      return d.length < 60 || d.split(/\s+/).length < 8 || d.toLowerCase() === name.toLowerCase();
    });
    expect(thin.map((tag) => tag.name)).toEqual([]);
    expect(new Set(tags.map((tag) => tag.description)).size).toBe(tags.length);
  });
});

/** The `code status` pairs of the "### Error codes" section: a status number applies to the codes after it on its line. */
function listedCodes(text: string): Set<string> {
  const start = text.indexOf("### Error codes");
  const end = text.indexOf("\n## ", start);
  const out = new Set<string>();
  for (const line of text.slice(start, end).split("\n")) {
    let status: string | null = null;
    for (const m of line.matchAll(/\b([1-5]\d\d)\b|`([a-z]+(?:_[a-z]+)*)`/g)) {
      if (m[1]) status = m[1];
      else if (status) out.add(`${m[2]} ${status}`);
    }
  }
  return out;
}

// ---- the codes the code uses ----------------------------------------------------

/** Where each error constructor (or helper) takes its code, and the status it answers. */
const TAKES_CODE: Record<string, { index: number; status?: number }> = {
  AppError: { index: 1 }, // the status is its first argument
  Conflict: { index: 1, status: 409 },
  BadRequest: { index: 1, status: 400 },
  ValidationFailed: { index: 1, status: 422 },
  invalid: { index: 3, status: 422 },
  declareUniqueConflict: { index: 2, status: 409 },
};

/**
 * Every `code status` a response can carry, read from src/ with the TypeScript
 * parser: `new Conflict(msg, "code")`, `invalid(loc, msg, type, "code")`,
 * `new AppError(404, "code", ...)`, `super(...)` in the error classes, and helpers
 * that pass a code parameter through (`const rule = (msg, code) => invalid(..., code)`),
 * resolved at their calls in the same file. A code that cannot be read this way
 * is reported as unresolved, so a new indirection cannot hide a code.
 */
function usedCodes(): { pairs: Set<string>; unresolved: string[] } {
  const pairs = new Set<string>();
  const unresolved: string[] = [];
  const strings = (node: ts.Node): string[] =>
    ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) ? [node.text] : node.getChildren().flatMap(strings);
  for (const file of new Glob("**/*.ts").scanSync(SRC)) {
    const source = ts.createSourceFile(file, readFileSync(join(SRC, file), "utf8"), ts.ScriptTarget.Latest, true);
    const helpers = new Map<string, { index: number; status: number }>();
    const calls: ts.CallExpression[] = [];
    const add = (arg: ts.Expression, status: number, where: ts.Node) => {
      if (ts.isIdentifier(arg)) {
        let fn: ts.Node | undefined = arg;
        while (fn && !ts.isFunctionLike(fn)) fn = fn.parent;
        const index = fn ? (fn as ts.SignatureDeclaration).parameters.findIndex((p) => ts.isIdentifier(p.name) && p.name.text === arg.text) : -1;
        // the error hierarchy itself passes its constructors' code parameter on
        if (fn && ts.isConstructorDeclaration(fn) && file === "platform/errors.ts") return;
        const owner = fn?.parent;
        const name =
          owner && ts.isVariableDeclaration(owner) && ts.isIdentifier(owner.name)
            ? owner.name.text
            : fn && ts.isFunctionDeclaration(fn)
              ? fn.name?.text
              : undefined;
        if (index >= 0 && name && !Number.isNaN(status)) helpers.set(name, { index, status });
        else if (index < 0 || !name) unresolved.push(`${file}:${source.getLineAndCharacterOfPosition(where.getStart()).line + 1} ${arg.text}`);
        return;
      }
      for (const code of strings(arg)) if (!Number.isNaN(status)) pairs.add(`${code} ${status}`);
    };
    const visit = (node: ts.Node) => {
      let callee: string | undefined;
      if ((ts.isNewExpression(node) || ts.isCallExpression(node)) && ts.isIdentifier(node.expression) && node.expression.text in TAKES_CODE) {
        callee = node.expression.text;
      } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.SuperKeyword) {
        let cls: ts.Node | undefined = node;
        while (cls && !ts.isClassDeclaration(cls)) cls = cls.parent;
        const base = cls && (cls as ts.ClassDeclaration).heritageClauses?.[0]?.types[0]?.expression;
        if (base && ts.isIdentifier(base) && base.text in TAKES_CODE) callee = base.text;
      }
      if (callee) {
        const args = (node as ts.CallExpression | ts.NewExpression).arguments ?? ts.factory.createNodeArray();
        const rule = TAKES_CODE[callee]!;
        const first = args[0];
        const status = rule.status ?? (first && ts.isNumericLiteral(first) ? Number(first.text) : Number.NaN);
        const arg = args[rule.index];
        if (arg) add(arg, status, node);
      }
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression)) calls.push(node);
      node.forEachChild(visit);
    };
    visit(source);
    for (const call of calls) {
      const helper = helpers.get((call.expression as ts.Identifier).text);
      const arg = helper && call.arguments[helper.index];
      if (arg) for (const code of strings(arg)) pairs.add(`${code} ${helper.status}`);
    }
  }
  return { pairs, unresolved };
}
