import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { documentCategories } from "@db/tenant/documents";
import { all, get, type Work } from "@/platform/db/work";
import { Conflict, invalid } from "@/platform/errors";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { nameSource } from "@/platform/records/refs";
import { defineResource } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import type {
  CategoryScope,
  DocumentCategory,
  DocumentCategoryArchiveQuery,
  DocumentCategoryCreate,
  DocumentCategoryListQuery,
  DocumentCategoryPatch,
  DocumentCategoryTree,
} from "./schemas";

export type CategoryRow = typeof documentCategories.$inferSelect;

const t = documentCategories;

export const serializeDocumentCategory = (r: CategoryRow): DocumentCategory => ({
  id: r.id,
  scope: r.scope as CategoryScope,
  parent_uuid: r.parent_id,
  name: r.name,
  path: r.path,
  // names never contain "/", so the separators count the ancestors
  depth: r.path.split("/").length - 1,
  sort_order: r.sort_order,
  description: r.description,
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
  deleted_at: r.deleted_at,
});

export const categoryRecords = defineResource<CategoryRow, DocumentCategory>({
  table: documentCategories,
  name: "document_category",
  label: "Document category",
  serialize: serializeDocumentCategory,
  eventFields: { rename: { parent_id: "parent_uuid" } },
});

/**
 * Categories in references (a document's `category`): by name. Archived
 * categories keep theirs: documents keep their category_id when it is archived.
 */
export const CATEGORY_NAMES = nameSource(documentCategories.id, { name: documentCategories.name }, (r) => r.name);

/**
 * A live category, of `scope` when one is given; undefined otherwise (missing,
 * archived, another scope, malformed id). The caller decides the answer: a
 * document's category_uuid is a 422 at ["body", "category_uuid"], not a 404.
 */
export function* requireCategoryForScope(db: TenantDb, id: string, scope?: CategoryScope): Work<CategoryRow | undefined> {
  const row = yield* categoryRecords.find(db, id.toLowerCase());
  return row && (scope === undefined || row.scope === scope) ? row : undefined;
}

// The tree's order: path compared name by name ("/" ranks before every character
// a name may hold, so descendants follow their parent), ignoring case; then
// sort_order and id, the tie-breakers spec.md names.
const TREE_ORDER = [sql`replace(${t.path}, '/', char(1)) COLLATE NOCASE`, t.sort_order, t.id];

export async function listCategoryTree(ctx: OrgContext, q: DocumentCategoryListQuery): Promise<DocumentCategoryTree> {
  const rows = await ctx.db.read((db) =>
    all<CategoryRow>(
      db
        .select()
        .from(t)
        .where(and(eq(t.scope, q.scope), isNull(t.deleted_at)))
        .orderBy(...TREE_ORDER),
    ),
  );
  return { items: rows.map(serializeDocumentCategory) };
}

/** Archived categories are 404 here (CONTRACT.md soft delete); CATEGORY_NAMES still names them. */
export function getCategory(ctx: OrgContext, id: string) {
  return categoryRecords.read(ctx.db, id);
}

const pathUnder = (parentPath: string | null, name: string) => (parentPath === null ? name : `${parentPath}/${name}`);

/** The path of the category's parent (null at the root), from its own path. */
const parentPathOf = (row: CategoryRow) => (row.parent_id === null ? null : row.path.slice(0, row.path.lastIndexOf("/")));

/** The parent a write names: a live category of the same scope (null: the root), else 422 at parent_uuid. */
function* parentFor(db: TenantDb, parentId: string | null | undefined, scope: CategoryScope): Work<CategoryRow | null> {
  if (!parentId) return null;
  const parent = yield* requireCategoryForScope(db, parentId, scope);
  if (!parent) throw invalid(["body", "parent_uuid"], "Must be a live document category of the same scope");
  return parent;
}

/** 409 duplicate when a live sibling (same scope and parent) has this name in any case. */
function* assertNameFree(db: TenantDb, scope: string, parentId: string | null, name: string, selfId?: string): Work<void> {
  const siblings = yield* all<{ id: string; name: string }>(
    db
      .select({ id: t.id, name: t.name })
      .from(t)
      .where(and(eq(t.scope, scope), parentId === null ? isNull(t.parent_id) : eq(t.parent_id, parentId), isNull(t.deleted_at))),
  );
  const wanted = name.toLowerCase();
  if (siblings.some((s) => s.id !== selfId && s.name.toLowerCase() === wanted)) {
    throw new Conflict("A live category with the same parent already has this name (names are compared ignoring case)", "duplicate");
  }
}

/** Every descendant, archived ones too, parents before their children (breadth first). */
function* descendantsOf(db: TenantDb, id: string): Work<CategoryRow[]> {
  const out: CategoryRow[] = [];
  const seen = new Set([id]);
  let frontier = [id];
  while (frontier.length) {
    const rows = (yield* all<CategoryRow>(db.select().from(t).where(inArray(t.parent_id, frontier)))).filter((r) => !seen.has(r.id));
    for (const r of rows) seen.add(r.id);
    out.push(...rows);
    frontier = rows.map((r) => r.id);
  }
  return out;
}

export async function createCategory(ctx: OrgContext, input: DocumentCategoryCreate) {
  return serializeDocumentCategory(
    await withTransaction(ctx, function* (s) {
      const parent = yield* parentFor(s.tx, input.parent_uuid, input.scope);
      const parentId = parent?.id ?? null;
      yield* assertNameFree(s.tx, input.scope, parentId, input.name);
      return yield* categoryRecords.create(
        s,
        {
          scope: input.scope,
          parent_id: parentId,
          name: input.name,
          path: pathUnder(parent?.path ?? null, input.name),
          sort_order: input.sort_order ?? 0,
          description: input.description ?? null,
        },
        { scope: input.scope, parent_uuid: parentId },
      );
    }),
  );
}

/**
 * After a rename or move: each descendant's path from its parent's new path
 * and its own name, in the same transaction, each as an update of its own
 * (version, audit row, event naming the category that moved).
 */
function* rewriteDescendantPaths(s: TxScope, moved: CategoryRow, descendants: CategoryRow[]): Work<void> {
  const paths = new Map([[moved.id, moved.path]]);
  for (const d of descendants) {
    const path = pathUnder(paths.get(d.parent_id as string) ?? null, d.name);
    paths.set(d.id, path);
    if (path !== d.path) {
      yield* categoryRecords.update(s, d.id, undefined, { path }, { includeDeleted: true, eventData: { ancestor_uuid: moved.id } });
    }
  }
}

export async function updateCategory(ctx: OrgContext, id: string, input: DocumentCategoryPatch) {
  const { base_version, parent_uuid, ...fields } = input;
  return serializeDocumentCategory(
    await withTransaction(ctx, function* (s) {
      const row = yield* categoryRecords.requireCurrent(s.tx, id, base_version);
      const scope = row.scope as CategoryScope;
      const moving = parent_uuid !== undefined && parent_uuid !== row.parent_id;
      let parentPath = parentPathOf(row);
      let parentId = row.parent_id;
      let descendants: CategoryRow[] | undefined;
      if (moving) {
        const parent = yield* parentFor(s.tx, parent_uuid, scope);
        if (parent) {
          descendants = yield* descendantsOf(s.tx, row.id);
          if (parent.id === row.id || descendants.some((d) => d.id === parent.id)) {
            throw invalid(["body", "parent_uuid"], "A category cannot move under itself or one of its own descendants");
          }
        }
        parentId = parent?.id ?? null;
        parentPath = parent?.path ?? null;
      }
      const name = fields.name ?? row.name;
      if (moving || name !== row.name) yield* assertNameFree(s.tx, scope, parentId, name, row.id);
      const path = pathUnder(parentPath, name);
      const updated = yield* categoryRecords.update(s, id, base_version, { ...fields, parent_id: parentId, path });
      if (path !== row.path) yield* rewriteDescendantPaths(s, updated, descendants ?? (yield* descendantsOf(s.tx, row.id)));
      return updated;
    }),
  );
}

/**
 * Archive: 422 category_has_children while live child categories remain.
 * Documents filed under it keep their category_id (a readable link).
 */
export async function archiveCategory(ctx: OrgContext, id: string, q: DocumentCategoryArchiveQuery) {
  return serializeDocumentCategory(
    await withTransaction(ctx, function* (s) {
      yield* categoryRecords.requireCurrent(s.tx, id, q.base_version);
      const child = yield* get(
        s.tx
          .select({ id: t.id })
          .from(t)
          .where(and(eq(t.parent_id, id), isNull(t.deleted_at)))
          .limit(1),
      );
      if (child) {
        throw invalid(["path", "category_uuid"], "The category has live child categories; archive or move them first", "value_error", "category_has_children");
      }
      return yield* categoryRecords.archive(s, id, q.base_version);
    }),
  );
}
