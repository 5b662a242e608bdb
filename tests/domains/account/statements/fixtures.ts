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
import { orgDb } from "@tests/domains/patients/record/fixtures";
import { twoOrgApp, type TestApp, type TestResponse } from "@tests/helpers";

export const BILLING = ["billing.ledger.read", "billing.ledger.write", "patients.read"];

export type StatementsWorld = Awaited<ReturnType<typeof statementsWorld>>;

export async function statementsWorld(options: { env?: Record<string, string>; withQueue?: boolean } = {}) {
  const w = await twoOrgApp(
    {
      writer: BILLING,
      reader: ["billing.ledger.read"],
      memberOfB: { org: "B", keys: BILLING },
    },
    { events: true, env: options.env, withQueue: options.withQueue },
  );
  const { t, admin: token, pathA: A, orgA } = w;
  const ok = async (r: Promise<TestResponse>, status = 201) => {
    const res = await r;
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status} ${res.text}`);
    return res.body;
  };
  const post = (path: string, body: unknown, as = token) => t.request("POST", `${A}${path}`, { token: as, body });
  const get = (path: string, as = token) => t.request("GET", `${A}${path}`, { token: as });
  const location = await ok(
    post("/locations", {
      name: "Harbor Dental",
      timezone: "UTC",
      address_line1: "1 Harbor Way",
      city: "Portland",
      state: "ME",
      postal_code: "04101",
      phone: "207-555-0100",
      email: "billing@harbor.example",
    }),
  );
  const definitions = async (category: string) =>
    (await ok(get(`/definitions?category=${category}&page_size=200`), 200)).items as { id: string; item_name: string }[];
  const definition = async (category: string, name: string) => (await definitions(category)).find((d) => d.item_name === name)!.id;

  /** A patient of org A at the practice, with an address; `guarantor` makes them a family member. */
  const patient = async (first: string, fields: Record<string, unknown> = {}, last = "Ledger") =>
    (
      await ok(
        post("/patients", {
          first_name: first,
          last_name: last,
          date_of_birth: "1980-02-03",
          location_uuid: location.id,
          address_line1: `${first.length} Elm Street`,
          city: "Portland",
          state: "ME",
          postal_code: "04102",
          ...fields,
        }),
      )
    ).uuid as string;
  const guarantorOf = (first: string, guarantor: string, fields: Record<string, unknown> = {}, last?: string) =>
    patient(first, { responsible_party_uuid: guarantor, ...fields }, last);

  /** A ledger entry of `entry_type` at `amount` dollars on `date`. */
  const entry = (patientId: string, entry_type: "charge" | "payment" | "adjustment", amount: number, date: string, description?: string) =>
    ok(post(`/patients/${patientId}/ledger-entries`, { entry_type, amount, entry_date: date, ...(description ? { description } : {}) }));
  const pay = async (patientId: string, amount: number, date: string, type = "Check") =>
    ok(post(`/patients/${patientId}/payments`, { amount, payment_type_uuid: await definition("payment_types", type), payment_date: date }));

  /** The statement and document rows of org A, straight from the database. */
  const statementRows = async () => (await orgDb(t, orgA)).read((d) => all<typeof statements.$inferSelect>(d.select().from(statements)));
  const documentRows = async (type = "statement") =>
    (await orgDb(t, orgA)).read((d) => all<typeof documents.$inferSelect>(d.select().from(documents).where(eq(documents.document_type, type))));
  const versionRows = async (documentId: string) =>
    (await orgDb(t, orgA)).read((d) =>
      all<typeof documentVersions.$inferSelect>(d.select().from(documentVersions).where(eq(documentVersions.document_id, documentId))),
    );

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
    ...w,
    t: t as TestApp,
    token,
    A,
    ok,
    post,
    get,
    location,
    definition,
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
