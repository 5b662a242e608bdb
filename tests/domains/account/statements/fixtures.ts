// The statements' test world: org A with a practice (a location with an
// address), families with addresses, email preferences and ledger entries,
// members who may read or also write the account, and org B for isolation.
// Jobs are run by hand (runRender, runBatchJob) unless a test starts workers.
import { eq } from "drizzle-orm";
import { documents, documentVersions } from "@db/tenant/documents";
import { statements } from "@db/tenant/account";
import { systemActor } from "@/platform/auth/actor";
import { all } from "@/platform/db/work";
import { statementsRender } from "@/domains/account/statements/render.job";
import { statementsBatch } from "@/domains/account/statements/batch.job";
import renderStatementJob from "@/domains/account/statements/render.handler";
import statementBatchJob from "@/domains/account/statements/batch.handler";
import { pdfText } from "@/domains/documents/processing/pdf";
import { billingWorld } from "@tests/domains/account/fixtures";

export type StatementsWorld = Awaited<ReturnType<typeof statementsWorld>>;

export async function statementsWorld(options: { env?: Record<string, string>; withQueue?: boolean } = {}) {
  const base = await billingWorld({
    ...options,
    location: {
      name: "Harbor Dental",
      address_line1: "1 Harbor Way",
      city: "Portland",
      state: "ME",
      postal_code: "04101",
      phone: "207-555-0100",
      email: "billing@harbor.example",
    },
  });
  const { t, ok, post, definition, person, db, orgA } = base;

  /** A patient of org A at the practice, with an address; `guarantor` makes them a family member. */
  const patient = (first: string, fields: Record<string, unknown> = {}, last?: string) =>
    person(first, { address_line1: `${first.length} Elm Street`, city: "Portland", state: "ME", postal_code: "04102", ...fields }, last);
  const guarantorOf = (first: string, guarantor: string, fields: Record<string, unknown> = {}, last?: string) =>
    patient(first, { responsible_party_uuid: guarantor, ...fields }, last);

  /** A ledger entry of `entry_type` at `amount` dollars on `date`. */
  const entry = (patientId: string, entry_type: "charge" | "payment" | "adjustment", amount: number, date: string, description?: string) =>
    ok(post(`/patients/${patientId}/ledger-entries`, { entry_type, amount, entry_date: date, ...(description ? { description } : {}) }));
  const pay = async (patientId: string, amount: number, date: string, type = "Check") =>
    ok(post(`/patients/${patientId}/payments`, { amount, payment_type_uuid: await definition("payment_types", type), payment_date: date }));

  /** The statement and document rows of org A, straight from the database. */
  const statementRows = async () => (await db()).read((d) => all<typeof statements.$inferSelect>(d.select().from(statements)));
  const documentRows = async (type = "statement") =>
    (await db()).read((d) => all<typeof documents.$inferSelect>(d.select().from(documents).where(eq(documents.document_type, type))));
  const versionRows = async (documentId: string) =>
    (await db()).read((d) => all<typeof documentVersions.$inferSelect>(d.select().from(documentVersions).where(eq(documentVersions.document_id, documentId))));

  /** The statements.render handler run by hand, as pg-boss would (attempt `retryCount` + 1). */
  const runRender = (statementId: string, retryCount = 0, requestId: string | null = null) =>
    renderStatementJob({
      rt: t.rt,
      payload: { statement_id: statementId },
      logger: t.rt.logger,
      actor: systemActor(statementsRender.id),
      causedBy: systemActor(statementsRender.id),
      orgId: orgA,
      requestId,
      job: { id: `job-${statementId}`, name: statementsRender.id, retryCount },
    }) as Promise<any>;
  const runBatchJob = (batchId: string) =>
    statementBatchJob({
      rt: t.rt,
      payload: { batch_id: batchId },
      logger: t.rt.logger,
      actor: systemActor(statementsBatch.id),
      causedBy: systemActor(statementsBatch.id),
      orgId: orgA,
      requestId: null,
      job: { id: `job-${batchId}`, name: statementsBatch.id, retryCount: 0 },
    }) as Promise<any>;

  /** The PDF of a document, from storage, and its text (unpdf), pages joined. */
  const pdfOf = async (documentId: string) => {
    const [v] = await versionRows(documentId);
    const bytes = (await t.rt.storage.get(v!.storage_key))!;
    const text = await pdfText(bytes);
    return { bytes, text: text.pages.join("\n"), pages: text.page_count };
  };

  return {
    ...base,
    patient,
    guarantorOf,
    entry,
    pay,
    statementRows,
    documentRows,
    versionRows,
    runRender,
    runBatchJob,
    pdfOf,
  };
}
