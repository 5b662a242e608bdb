import { and, desc, eq, inArray, ne, sql } from "drizzle-orm";
import { eraClaims, eras } from "@db/tenant/claims";
import { get, run } from "@/platform/db/work";
import { Conflict, NotFound, PayloadTooLarge, invalid } from "@/platform/errors";
import { readMultipart } from "@/platform/http/multipart";
import { newId } from "@/platform/ids";
import { queueJob } from "@/platform/queue/enqueue";
import type { OrgContext } from "@/platform/records/context";
import { pageFrom } from "@/platform/records/paging";
import { withTransaction } from "@/platform/records/transaction";
import type { PlatformRuntime } from "@/platform/runtime";
import { claimRecords } from "@/domains/insurance/claims/records";
import { claimsEraImport } from "./import.job";
import { DUPLICATE_ERA, eraOf, eraRecords, serializeEras, type EraClaimRow } from "./records";
import { ERA_TEXT_TYPES, type Era, type EraSummary, type EraListQuery, type EraMatch, type EraPost } from "./schemas";
import { problemsOfMatch } from "./match";

// ERAs (docs/insurance/claims.md, "ERAs"): an 835 file is taken whole, kept in
// the document storage, and read by the job `claims.era-import`, which
// matches its claims and posts them as the carrier's automation says. The
// upload itself only peeks at the trace number and payer (what makes a
// duplicate, 409), so a malformed file is still taken and then `failed` with
// the parser's message.

/** The largest ERA taken (multipart or text): a large group's 835 is a few MB. */
export const ERA_LIMIT_BYTES = 10 * 1024 * 1024;

/** The file's trace number (TRN02), payer id (TRN03) and payer name (N1*PR), read without parsing it. */
export function peekEra(text: string): { trace: string | null; payerId: string | null; payerName: string | null } {
  const body = text.replace(/^\uFEFF/, "").trimStart();
  if (!body.startsWith("ISA") || body.length < 106) return { trace: null, payerId: null, payerName: null };
  const element = body[3]!;
  const terminator = body[105]!;
  let trace: string | null = null;
  let payerId: string | null = null;
  let payerName: string | null = null;
  for (const raw of body.split(terminator)) {
    const seg = raw.trim().split(element);
    if (seg[0] === "TRN" && !trace) {
      trace = seg[2]?.trim() || null;
      payerId = seg[3]?.trim() || null;
    }
    if (seg[0] === "N1" && seg[1] === "PR" && !payerName) {
      payerName = seg[2]?.trim() || null;
      payerId ??= seg[4]?.trim() || null;
    }
    if (seg[0] === "CLP") break; // the header is read
  }
  return { trace, payerId, payerName };
}

type Upload = { text: string; fileName: string | null };

/** The ERA's text: the multipart part named `file`, or the whole text body; 413 past ERA_LIMIT_BYTES. */
export async function readEraUpload(request: Request, rawBody: string | undefined, uploadLimit: number): Promise<Upload> {
  const limit = Math.min(ERA_LIMIT_BYTES, uploadLimit);
  const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if ((ERA_TEXT_TYPES as readonly string[]).includes(type)) {
    const text = rawBody ?? "";
    if (Buffer.byteLength(text) > limit) throw new PayloadTooLarge(limit);
    if (!text.trim()) throw invalid(["body"], "The ERA is empty", "missing");
    return { text, fileName: null };
  }
  let fileName: string | null = null;
  const form = await readMultipart(request, { maxFields: 5, maxFieldBytes: 1000, maxFileBytes: limit }, async (file) => {
    if (file.field !== "file") {
      file.stream.resume();
      throw invalid(["body", file.field], "The ERA goes in the part named `file`");
    }
    fileName = file.filename || null;
    const chunks: Buffer[] = [];
    for await (const chunk of file.stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  });
  const text = form.files[0];
  if (!text?.trim()) throw invalid(["body", "file"], "The ERA file is missing or empty", "missing");
  return { text, fileName };
}

/** POST {P}/insurance/eras: kept, then read by the job (202). */
export async function receiveEra(rt: PlatformRuntime, ctx: OrgContext, upload: Upload): Promise<Era> {
  const peek = peekEra(upload.text);
  const payerKey = peek.payerId ?? peek.payerName;
  if (peek.trace && payerKey) {
    const dup = await ctx.db.read((db) =>
      get<{ id: string }>(
        db
          .select({ id: eras.id })
          .from(eras)
          .where(and(eq(eras.payer_key, payerKey), eq(eras.trace_number, peek.trace!), ne(eras.status, "failed"))),
      ),
    );
    if (dup) throw new Conflict(`${DUPLICATE_ERA} (ERA ${dup.id})`, "duplicate_era");
  }
  const id = newId();
  const bytes = new TextEncoder().encode(upload.text);
  const key = `${ctx.org.id}/eras/${id}.x12`;
  await rt.storage.put(key, bytes, "application/edi-x12");
  try {
    return await withTransaction(ctx, function* (s) {
      const row = yield* eraRecords.create(s, {
        id,
        status: "received",
        storage_key: key,
        file_size: bytes.byteLength,
        file_name: upload.fileName,
        trace_number: peek.trace,
        payer_key: payerKey,
        payer_name: peek.payerName,
        carrier_id: null,
        payment_date: null,
        payment_type: null,
        total_paid_cents: null,
        provider_adjustments: [],
        problems: [],
        claim_payment_id: null,
        error: null,
        posted_at: null,
      });
      queueJob(s, claimsEraImport, { era_id: id, post: false }, { singletonKey: id });
      return yield* eraOf(s.tx, row);
    });
  } catch (err) {
    await rt.storage.delete(key).catch(() => {});
    throw err;
  }
}

export async function getEra(ctx: OrgContext, id: string): Promise<Era> {
  return ctx.db.read(function* (db) {
    return yield* eraOf(db, yield* eraRecords.require(db, id));
  });
}

/** GET {P}/insurance/eras: newest first. */
export async function listEras(ctx: OrgContext, q: EraListQuery) {
  const where = and(q.status ? inArray(eras.status, q.status) : undefined, q.carrier_uuid ? eq(eras.carrier_id, q.carrier_uuid) : undefined);
  return ctx.db.read(function* (db) {
    const page = yield* pageFrom(
      q,
      db.select({ n: sql<number>`count(*)` }).from(eras).where(where),
      db.select().from(eras).where(where).orderBy(desc(eras.created_at), desc(eras.id)),
    );
    return { ...page, items: (yield* serializeEras(db, page.items, false)) as EraSummary[] };
  });
}

/** POST {P}/insurance/eras/{id}/post: a reviewed ERA's matched claims without problems are posted by the job, whatever the carrier's automation (202). */
export async function postEra(ctx: OrgContext, id: string, input: EraPost): Promise<Era> {
  return withTransaction(ctx, function* (s) {
    const row = yield* eraRecords.requireCurrent(s.tx, id, input.base_version);
    if (row.status !== "needs_review")
      throw invalid(["path", "era_uuid"], `The ERA is ${row.status}: only an ERA that needs review is posted by hand`, "value_error", "era_not_in_review");
    const updated = yield* eraRecords.update(s, row.id, row.version, { status: "processing" }, { action: "post_requested", event: false });
    queueJob(s, claimsEraImport, { era_id: id, post: true }, { singletonKey: `${id}:post` });
    return yield* eraOf(s.tx, updated);
  });
}

/** POST {P}/insurance/eras/{id}/claims/{clp_index}/match: an unmatched (or wrongly matched) CLP matched by hand to a claim. */
export async function matchEraClaim(ctx: OrgContext, id: string, clpIndex: number, input: EraMatch): Promise<Era> {
  return withTransaction(ctx, function* (s) {
    const era = yield* eraRecords.requireCurrent(s.tx, id, input.base_version);
    const clp = yield* get<EraClaimRow>(
      s.tx
        .select()
        .from(eraClaims)
        .where(and(eq(eraClaims.era_id, id), eq(eraClaims.clp_index, clpIndex))),
    );
    if (!clp) throw new NotFound("ERA claim");
    const claim = yield* claimRecords.require(s.tx, input.claim_uuid);
    if (clp.status === "posted") throw invalid(["path", "clp_index"], "This claim of the ERA is posted already", "value_error", "era_claim_posted");
    if (!["needs_review", "received"].includes(era.status))
      throw invalid(["path", "era_uuid"], `The ERA is ${era.status}: claims are matched by hand while it needs review`, "value_error", "era_not_in_review");
    const problems = yield* problemsOfMatch(s.tx, era, clp, claim);
    yield* run(
      s.tx
        .update(eraClaims)
        .set({ claim_id: claim.id, match_method: "manual", status: problems.length ? "needs_review" : "matched", problems, updated_at: s.now })
        .where(eq(eraClaims.id, clp.id)),
    );
    const updated = yield* eraRecords.update(
      s,
      era.id,
      era.version,
      {},
      { action: "claim_matched", eventData: { clp_index: clpIndex, claim_id: claim.id }, changedFields: false },
    );
    return yield* eraOf(s.tx, updated);
  });
}
