import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { addDays, todayUtc } from "@/platform/time/dates";
import { longDate } from "@/domains/account/statements/render";
import { statementHooks } from "@/domains/account/statements/produce";
import { auditOf, busDrained, expectGuarded, expectValidationCases } from "@tests/helpers";
import { statementsWorld, type StatementsWorld } from "./fixtures";

// The statement endpoints over HTTP (every success and error status, nothing
// stored on a refusal) and the statements.render job run by hand: the PDF's
// text, the document it is stored as, events and audit, idempotence and a
// worker killed mid-render.

let w: StatementsWorld;
const TODAY = todayUtc();
const ago = (d: number) => addDays(TODAY, -d);
/** The family of Rosa (guarantor, emailable) and Kit; entries before and inside the default 45-day period. */
let rosa: string;
let kit: string;

beforeAll(async () => {
  w = await statementsWorld();
  rosa = await w.patient("Rosa", { email: "rosa@example.com", receives_email: true });
  kit = await w.guarantorOf("Kit", rosa);
  await w.entry(rosa, "charge", 50, ago(100), "Exam");
  await w.entry(rosa, "charge", 200, ago(10), "Crown prep");
  await w.pay(rosa, 30, ago(5));
  await w.entry(kit, "charge", 80, ago(40), "Cleaning");
  await w.entry(kit, "adjustment", -10, ago(3), "Courtesy discount");
}, 30_000);
afterAll(() => w.t.close());

const create = (body: Record<string, unknown>, token = w.token) => w.post("/statements", body, token);
const flat = (text: string) => text.replace(/\s+/g, " ");

describe("POST {P}/statements", () => {
  test("202 with the statement pending, the default period the last 45 days, mode mail", async () => {
    const before = w.events.length;
    const r = await create({ guarantor_uuid: rosa, note: "Thank you for your visit" }, w.tokens.writer);
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({
      guarantor: { uuid: rosa, name: "Rosa Ledger" },
      date_from: ago(45),
      date_to: TODAY,
      mode: "mail",
      note: "Thank you for your visit",
      status: "pending",
      status_reason: null,
      batch_uuid: null,
      document_uuid: null,
      amount_due: null,
      due_date: null,
      sent_at: null,
      version: 1,
    });
    await busDrained(w.t.rt.bus);
    const created = w.events.slice(before).filter((e) => e.type === "statement.created");
    expect(created.map((e) => [e.resource_id, e.practice_id, e.data])).toEqual([
      [r.body.id, w.location.id, { id: r.body.id, guarantor_uuid: rosa, mode: "mail", batch_uuid: null }],
    ]);
    // a second statement while this one is pending: 409, nothing stored
    const rows = (await w.statementRows()).length;
    const again = await create({ guarantor_uuid: rosa });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("statement_pending");
    expect((await w.statementRows()).length).toBe(rows);
    await w.runRender(r.body.id);
  });

  test("refusals: 404 missing patient, 422 archived, not a guarantor, bad dates, bad body; nothing stored", async () => {
    const before = await w.statementRows();
    const gone = "01970000-0000-7000-8000-00000000dead";
    const missing = await create({ guarantor_uuid: gone });
    expect([missing.status, missing.body.code]).toEqual([404, "not_found"]);
    const dependent = await create({ guarantor_uuid: kit });
    expect([dependent.status, dependent.body.code, dependent.body.detail[0].loc]).toEqual([422, "not_a_guarantor", ["body", "guarantor_uuid"]]);
    const archived = await w.patient("Arch");
    const p = await w.get(`/patients/${archived}`);
    expect((await w.t.request("POST", `${w.A}/patients/${archived}/archive`, { token: w.token, body: { base_version: p.body.version } })).status).toBe(200);
    const refused = await create({ guarantor_uuid: archived });
    expect([refused.status, refused.body.code]).toEqual([422, "patient_archived"]);
    const reversed = await create({ guarantor_uuid: rosa, date_from: ago(1), date_to: ago(2) });
    expect([reversed.status, reversed.body.code, reversed.body.detail[0].loc]).toEqual([422, "invalid_date_range", ["body", "date_from"]]);
    const tooLong = await create({ guarantor_uuid: rosa, date_from: ago(400), date_to: ago(1) });
    expect([tooLong.status, tooLong.body.code]).toEqual([422, "invalid_date_range"]);
    await expectValidationCases(w.t, "POST", `${w.A}/statements`, w.token, [
      [{}, ["body", "guarantor_uuid"], "missing"],
      [{ guarantor_uuid: "nope" }, ["body", "guarantor_uuid"], expect.any(String)],
      [{ guarantor_uuid: rosa, mode: "fax" }, ["body", "mode"], expect.any(String)],
      [{ guarantor_uuid: rosa, date_to: addDays(TODAY, 5) }, ["body", "date_to"], "value_error"],
      [{ guarantor_uuid: rosa, date_from: "2025-02-30" }, ["body", "date_from"], expect.any(String)],
      [{ guarantor_uuid: rosa, note: "x".repeat(501) }, ["body", "note"], expect.any(String)],
      [{ guarantor_uuid: rosa, status: "sent" }, ["body", "status"], "extra_forbidden"],
    ]);
    expect(await w.statementRows()).toEqual(before);
  });

  test("guarded: 401 without a token, 403 without billing.ledger.write, 404 for another org's member; a reader cannot post", async () => {
    await expectGuarded(w.t, w.orgA, w.orgB, "POST", `${w.A}/statements`, "billing.ledger.write", { guarantor_uuid: rosa });
    expect((await create({ guarantor_uuid: rosa }, w.tokens.reader)).status).toBe(403);
    // another org's patient is not found through this org's path
    const otherRosa = await w.t.request("POST", `${w.pathB}/patients`, { token: w.token, body: { first_name: "Other", last_name: "Org" } });
    expect((await create({ guarantor_uuid: otherRosa.body.uuid })).status).toBe(404);
    expect((await w.t.request("POST", `${w.pathB}/statements`, { token: w.tokens.memberOfB, body: { guarantor_uuid: rosa } })).status).toBe(404);
  });
});

describe("the statements.render job (run by hand)", () => {
  let statement: any;
  let requestId: string;

  beforeAll(async () => {
    const r = await w.t.request("POST", `${w.A}/statements`, {
      token: w.token,
      body: { guarantor_uuid: rosa, mode: "in_person" },
      headers: { "x-request-id": "req-statement-1" },
    });
    expect(r.status).toBe(202);
    statement = r.body;
    requestId = "req-statement-1";
  });

  test("renders the PDF, stores it as the guarantor's statement document and marks the statement ready", async () => {
    const before = w.events.length;
    const out = await w.runRender(statement.id, 0, requestId);
    expect(out).toEqual({ statement_id: statement.id, outcome: "ready", document_id: statement.id });
    const ready = await w.ok(w.get(`/statements/${statement.id}`), 200);
    expect(ready).toMatchObject({
      status: "ready",
      status_reason: null,
      document_uuid: statement.id,
      amount_due: "290.00",
      due_date: addDays(TODAY, 30),
      version: 2,
    });

    const doc = await w.ok(w.get(`/documents/${statement.id}`), 200);
    expect(doc).toMatchObject({
      document_type: "statement",
      owner_type: "patient",
      owner_uuid: rosa,
      is_org_scoped: false,
      status: "active",
      processing_status: "completed",
      mime_type: "application/pdf",
      file_name: `statement-${TODAY}.pdf`,
      document_date: TODAY,
      current_version: 1,
      page_count: 1,
      uploaded_by: "system:statements.render",
    });
    const steps = await w.ok(w.get(`/documents/${statement.id}/processing-status`), 200);
    expect(steps.steps.map((s: any) => s.status)).toEqual(["skipped", "skipped", "skipped", "skipped"]);
    expect((await w.get(`/documents/${statement.id}/download`)).status).toBe(200);
    // listed among the guarantor's documents, and found by its text
    const listed = await w.ok(w.get(`/documents?owner_uuid=${rosa}&document_type=statement`), 200);
    expect(listed.items.map((d: any) => d.id)).toContain(statement.id);
    const found = await w.ok(w.get(`/documents?search=${encodeURIComponent("Crown prep")}`), 200);
    expect(found.items.map((d: any) => d.id)).toContain(statement.id);

    await busDrained(w.t.rt.bus);
    const mine = w.events.slice(before).filter((e) => e.resource_id === statement.id);
    expect(mine.map((e) => e.type).sort()).toEqual(["document.created", "document.uploaded", "statement.ready"]);
    const readyEvent = mine.find((e) => e.type === "statement.ready")!;
    expect(readyEvent.practice_id).toBe(w.location.id);
    expect(readyEvent.data).toEqual({ id: statement.id, changed_fields: expect.arrayContaining(["status", "document_uuid", "amount_due", "due_date"]) });
    // client-safe: ids and field names, never an amount
    // an amount as a JSON value (ids are hex and may hold the same digits), or the procedure
    for (const e of mine) expect(JSON.stringify(e.data)).not.toMatch(/[:[,](290|29000)(\.\d+)?[,\]}]|"(290|29000)(\.\d\d)?"|Crown/);

    const audit = await auditOf(w.t, w.orgA, statement.id);
    expect(audit.map((a) => [a.resource_type, a.action, a.actor_id, a.request_id]).sort()).toEqual(
      [
        ["document", "document.created", "system:statements.render", requestId],
        ["statement", "statement.created", expect.any(String), requestId],
        ["statement", "statement.ready", "system:statements.render", requestId],
      ].sort(),
    );
  });

  test("the PDF's text: practice, guarantor, each member's entries of the period, aging, amount due, due date, remittance stub", async () => {
    const { text, pages } = await w.pdfOf(statement.id);
    const t = flat(text);
    expect(pages).toBe(1);
    // the practice and the guarantor's address
    for (const s of ["Harbor Dental", "1 Harbor Way", "Portland, ME 04101", "Phone 207-555-0100", "billing@harbor.example"]) expect(t).toContain(s);
    for (const s of ["Rosa Ledger", "4 Elm Street", "Portland, ME 04102"]) expect(t).toContain(s);
    expect(t).toContain(`Period: ${longDate(ago(45))} to ${longDate(TODAY)}`);
    expect(t).toContain(`Statement date: ${longDate(TODAY)}`);
    // each member's entries of the period, under the member
    expect(t).toContain(`Balance forward on ${longDate(ago(45))} $50.00`);
    expect(t).toContain(`${longDate(ago(10))} Crown prep $200.00`);
    expect(t).toContain(`${longDate(ago(5))} Payment (Check) $30.00`);
    expect(t).toContain(`${longDate(ago(40))} Cleaning $80.00`);
    expect(t).toContain(`${longDate(ago(3))} Courtesy discount $10.00`);
    const kitAt = t.indexOf("Kit Ledger");
    expect(t.indexOf("Crown prep")).toBeLessThan(kitAt);
    expect(t.indexOf("Payment (Check)")).toBeLessThan(kitAt);
    expect(t.indexOf("Cleaning")).toBeGreaterThan(kitAt);
    expect(t).not.toContain("Exam"); // before the period: in the balance forward only
    expect(t).toContain(`Balance on ${longDate(TODAY)} $290.00`);
    // aging (FIFO: the payment and discount paid the oldest charges first)
    expect(t).toContain("0-30 days 31-60 days 61-90 days Over 90 days Total balance");
    expect(t).toContain("$200.00 $70.00 $0.00 $20.00 $290.00");
    expect(t).toContain("Amount due: $290.00");
    expect(t).toContain(`Due date: ${longDate(addDays(TODAY, 30))}`);
    // the remittance stub
    expect(t).toContain("Please detach and return this portion with your payment.");
    expect(t).toContain("REMITTANCE");
    expect(t).toContain("Remit to: Harbor Dental");
    expect(t).toContain("Account: Rosa Ledger");
    expect(t).toContain("Amount enclosed: $");
  });

  test("run again: nothing changes, still one document and one stored file", async () => {
    const before = await w.ok(w.get(`/statements/${statement.id}`), 200);
    expect(await w.runRender(statement.id, 1)).toEqual({ statement_id: statement.id, outcome: "ready", document_id: statement.id });
    expect(await w.ok(w.get(`/statements/${statement.id}`), 200)).toEqual(before);
    expect((await w.documentRows()).filter((d) => d.id === statement.id)).toHaveLength(1);
    expect(await w.versionRows(statement.id)).toHaveLength(1);
    expect(filesOf(statement.id)).toHaveLength(1);
  });
});

/** The objects stored under a document's folder (local storage). */
function filesOf(documentId: string): string[] {
  const dir = join((w.t.config.storage as { dir: string }).dir, w.orgA, "documents", documentId);
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

describe("a render that dies is retried and makes one document", () => {
  const pending = async (body: Record<string, unknown> = {}) => {
    const g = await w.patient("Dora", {}, `Retry${Math.random().toString(36).slice(2, 7)}`);
    await w.entry(g, "charge", 75, ago(2), "Filling");
    return w.ok(create({ guarantor_uuid: g, ...body }), 202);
  };

  test("killed after rendering, before storing: nothing stored; the retry stores one document", async () => {
    const st = await pending();
    statementHooks.beforeStore = ({ statementId, attempt }) => {
      if (statementId === st.id && attempt === 1) throw new Error("worker killed mid-render");
    };
    try {
      await expect(w.runRender(st.id, 0)).rejects.toThrow("worker killed mid-render");
      expect((await w.ok(w.get(`/statements/${st.id}`), 200)).status).toBe("pending");
      expect((await w.documentRows()).filter((d) => d.id === st.id)).toEqual([]);
      expect(await w.runRender(st.id, 1)).toMatchObject({ outcome: "ready", document_id: st.id });
    } finally {
      statementHooks.beforeStore = undefined;
    }
    expect((await w.documentRows()).filter((d) => d.id === st.id)).toHaveLength(1);
    expect(filesOf(st.id)).toHaveLength(1);
  });

  test("killed inside the write (document stored, statement not yet ready): both roll back, the file is removed; the retry makes one", async () => {
    const st = await pending();
    statementHooks.beforeReady = ({ statementId, attempt }) => {
      if (statementId === st.id && attempt === 1) throw new Error("worker killed in the write");
    };
    try {
      await expect(w.runRender(st.id, 0)).rejects.toThrow("worker killed in the write");
      expect((await w.documentRows()).filter((d) => d.id === st.id)).toEqual([]);
      expect(filesOf(st.id)).toEqual([]);
      expect(await w.runRender(st.id, 1)).toMatchObject({ outcome: "ready" });
    } finally {
      statementHooks.beforeReady = undefined;
    }
    expect((await w.documentRows()).filter((d) => d.id === st.id)).toHaveLength(1);
    expect(await w.versionRows(st.id)).toHaveLength(1);
    expect(filesOf(st.id)).toHaveLength(1);
  });

  test("two copies of the job at once: one document, one file, one statement.ready", async () => {
    const st = await pending();
    const [a, b] = await Promise.all([w.runRender(st.id), w.runRender(st.id)]);
    expect([a.outcome, b.outcome]).toEqual(["ready", "ready"]);
    expect((await w.documentRows()).filter((d) => d.id === st.id)).toHaveLength(1);
    expect(filesOf(st.id)).toHaveLength(1);
    const audit = await auditOf(w.t, w.orgA, st.id);
    expect(audit.filter((e) => e.action === "statement.ready")).toHaveLength(1);
    expect(audit.filter((e) => e.action === "document.created")).toHaveLength(1);
  });

  test("the last attempt that fails marks the statement failed with the reason; later runs leave it", async () => {
    const st = await pending();
    statementHooks.beforeStore = ({ statementId }) => {
      if (statementId === st.id) throw new Error("renderer broke");
    };
    try {
      await expect(w.runRender(st.id, 0)).rejects.toThrow("renderer broke");
      expect(await w.runRender(st.id, 3)).toEqual({ statement_id: st.id, outcome: "failed", document_id: null });
    } finally {
      statementHooks.beforeStore = undefined;
    }
    const failed = await w.ok(w.get(`/statements/${st.id}`), 200);
    expect(failed).toMatchObject({ status: "failed", status_reason: "Not produced: renderer broke", document_uuid: null });
    expect(await w.runRender(st.id, 0)).toMatchObject({ outcome: "already_failed" });
    // a new statement may be made for the guarantor now
    expect((await create({ guarantor_uuid: failed.guarantor.uuid })).status).toBe(202);
  });

  test("a guarantor archived before the render: failed at once, no retry", async () => {
    const st = await pending();
    const p = await w.ok(w.get(`/patients/${st.guarantor.uuid}`), 200);
    await w.ok(w.t.request("POST", `${w.A}/patients/${st.guarantor.uuid}/archive`, { token: w.token, body: { base_version: p.version } }), 200);
    expect(await w.runRender(st.id, 0)).toMatchObject({ outcome: "failed" });
    expect(await w.ok(w.get(`/statements/${st.id}`), 200)).toMatchObject({ status: "failed", status_reason: "Not produced: The guarantor was archived" });
  });
});

describe("GET {P}/statements, GET {P}/statements/{id}", () => {
  test("the list, newest first, filtered by guarantor, status, mode and batch; paged", async () => {
    const all = await w.ok(w.get("/statements?page_size=200"), 200);
    expect(all.total).toBeGreaterThanOrEqual(3);
    const ids = all.items.map((s: any) => s.id);
    expect(ids).toEqual([...ids].sort().reverse());
    const mine = await w.ok(w.get(`/statements?guarantor_uuid=${rosa}`, w.tokens.reader), 200);
    expect(mine.items.every((s: any) => s.guarantor.uuid === rosa)).toBe(true);
    expect(mine.total).toBe(2);
    const inPerson = await w.ok(w.get(`/statements?guarantor_uuid=${rosa}&mode=in_person&status=ready`), 200);
    expect(inPerson.items).toHaveLength(1);
    expect((await w.ok(w.get(`/statements?batch_uuid=${"01970000-0000-7000-8000-0000000000aa"}`), 200)).total).toBe(0);
    const paged = await w.ok(w.get("/statements?page_size=1&page=2"), 200);
    expect(paged.items).toHaveLength(1);
    expect(paged.items[0].id).toBe(ids[1]);
  });

  test("errors: 422 bad filters, 404 a missing or another org's statement, 401, 403 without billing.ledger.read", async () => {
    for (const q of ["status=lost", "mode=fax", "page_size=201", "guarantor_uuid=x", "other=1"]) expect((await w.get(`/statements?${q}`)).status).toBe(422);
    const missing = await w.get("/statements/01970000-0000-7000-8000-00000000beef");
    expect([missing.status, missing.body.code]).toEqual([404, "not_found"]);
    const some = (await w.ok(w.get("/statements"), 200)).items[0].id;
    expect((await w.t.request("GET", `${w.pathB}/statements/${some}`, { token: w.tokens.memberOfB })).status).toBe(404);
    await expectGuarded(w.t, w.orgA, w.orgB, "GET", `${w.A}/statements/${some}`, "billing.ledger.read");
    await expectGuarded(w.t, w.orgA, w.orgB, "GET", `${w.A}/statements`, "billing.ledger.read");
  });
});
