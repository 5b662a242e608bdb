import { and, asc, count, eq, ne, sql } from "drizzle-orm";
import { platformAudit } from "@/platform/audit/audit";
import { partners } from "@db/control/schema";
import { get, type Work } from "@/platform/db/work";
import type { ControlDb } from "@/platform/db/control";
import { declareUniqueConflict } from "@/platform/db/constraints";
import { Conflict, NotFound } from "@/platform/errors";
import { newId, nowIso, UUID_RE } from "@/platform/ids";
import { pageFrom } from "@/platform/records/paging";
import { checkVersion, updatedOrConflict } from "@/platform/records/versions";
import type { PlatformRuntime } from "@/platform/runtime";
import type { Caller } from "@/platform/auth/actor";
import type { Partner, PartnerCreate, PartnerListQuery, PartnerPatch } from "./schemas";

// Partners live in the control database and belong to no org: each write and its
// audit entry (platform-level: the index row, org_id null) commit together.

type PartnerRow = typeof partners.$inferSelect;

const SLUG_TAKEN = "A partner with this slug already exists";
declareUniqueConflict("partners.slug", SLUG_TAKEN);

export const serializePartner = (p: PartnerRow): Partner => ({
  id: p.id,
  name: p.name,
  slug: p.slug,
  partner_type: p.partner_type as Partner["partner_type"],
  status: p.status as Partner["status"],
  display_name: p.display_name,
  description: p.description,
  contact_email: p.contact_email,
  contact_name: p.contact_name,
  contact_phone: p.contact_phone,
  extra_data: p.extra_data ?? {},
  internal_notes: p.internal_notes,
  logo_url: p.logo_url,
  website: p.website,
  created_at: p.created_at,
  updated_at: p.updated_at,
  deleted_at: p.deleted_at,
  version: p.version,
});

function* partnerRow(db: ControlDb, id: string): Work<PartnerRow> {
  const row = UUID_RE.test(id) ? yield* get<PartnerRow>(db.select().from(partners).where(eq(partners.id, id))) : undefined;
  if (!row) throw new NotFound("Partner");
  return row;
}

function* assertSlugFree(db: ControlDb, slug: string, except?: string): Work<void> {
  const taken = yield* get<{ id: string }>(
    db
      .select({ id: partners.id })
      .from(partners)
      .where(and(eq(partners.slug, slug), except ? ne(partners.id, except) : undefined)),
  );
  if (taken) throw new Conflict(SLUG_TAKEN);
}

const auditPartner = (tx: ControlDb, caller: Caller, now: string, action: string, id: string): Work<void> =>
  platformAudit(tx, caller, now, { action: `partner.${action}`, resource_type: "partner", resource_id: id });

export async function listPartners(rt: PlatformRuntime, q: PartnerListQuery) {
  const page = await rt.control.read((db) => {
    const where = and(
      q.status ? eq(partners.status, q.status) : ne(partners.status, "archived"),
      q.partner_type ? eq(partners.partner_type, q.partner_type) : undefined,
    );
    return pageFrom<PartnerRow>(
      q,
      db.select({ n: count() }).from(partners).where(where),
      db.select().from(partners).where(where).orderBy(sql`${partners.name} COLLATE NOCASE`, asc(partners.id)),
    );
  });
  return { ...page, items: page.items.map(serializePartner) };
}

/** A partner by id, archived ones included (their status says so). */
export async function getPartner(rt: PlatformRuntime, id: string): Promise<Partner> {
  return serializePartner(await rt.control.read((db) => partnerRow(db, id)));
}

export async function createPartner(rt: PlatformRuntime, input: PartnerCreate, caller: Caller): Promise<Partner> {
  const row = await rt.control.write(function* (tx) {
    const now = nowIso();
    yield* assertSlugFree(tx, input.slug);
    const id = newId();
    const created = (yield* get<PartnerRow>(
      tx
        .insert(partners)
        .values({
          ...input,
          id,
          partner_type: input.partner_type ?? "reseller",
          status: "active",
          extra_data: input.extra_data ?? {},
          created_at: now,
          updated_at: now,
          version: 1,
        })
        .returning(),
    ))!;
    yield* auditPartner(tx, caller, now, "created", id);
    return created;
  });
  return serializePartner(row);
}

/** The change of `patch`, with deleted_at following the status (archived: set; otherwise cleared). */
async function changePartner(rt: PlatformRuntime, id: string, baseVersion: number | undefined, patch: Partial<PartnerRow>, action: string, caller: Caller) {
  const row = await rt.control.write(function* (tx) {
    const now = nowIso();
    const before = yield* partnerRow(tx, id);
    checkVersion(before, baseVersion);
    if (patch.slug && patch.slug !== before.slug) yield* assertSlugFree(tx, patch.slug, id);
    const status = patch.status ?? before.status;
    const deleted_at = status === "archived" ? (before.status === "archived" ? before.deleted_at : now) : null;
    const after = updatedOrConflict(
      yield* get<PartnerRow>(
        tx
          .update(partners)
          .set({ ...patch, deleted_at, version: before.version + 1, updated_at: now })
          .where(and(eq(partners.id, id), eq(partners.version, before.version)))
          .returning(),
      ),
    );
    yield* auditPartner(tx, caller, now, status === "archived" && before.status !== "archived" ? "archived" : action, id);
    return after;
  });
  return serializePartner(row);
}

export function updatePartner(rt: PlatformRuntime, id: string, input: PartnerPatch, caller: Caller) {
  const { base_version, ...patch } = input;
  return changePartner(rt, id, base_version, patch, "updated", caller);
}

/** Archive: status archived (kept, readable by id, listed only with status=archived); archiving again changes nothing. */
export async function archivePartner(rt: PlatformRuntime, id: string, caller: Caller) {
  const current = await getPartner(rt, id);
  if (current.status === "archived") return current;
  return changePartner(rt, id, undefined, { status: "archived" }, "archived", caller);
}
