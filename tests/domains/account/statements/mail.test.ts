import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addDays, todayUtc } from "@/platform/time/dates";
import { statementHooks } from "@/domains/account/statements/produce";
import { longDate } from "@/domains/account/statements/render";
import { pdfText } from "@/domains/documents/processing/pdf";
import { readOutbox } from "@/platform/mail/outbox";
import { auditOf, busDrained } from "@tests/helpers";
import { statementsWorld, type StatementsWorld } from "./fixtures";
import { startSmtpReceiver } from "./smtp-receiver";

// Statements by email through nodemailer to a real SMTP server on 127.0.0.1
// (smtp-server): the message and its PDF as received; only guarantors who
// accept email and have an address get one; a relay that refuses is retried,
// and its last attempt marks the statement failed; a worker killed after the
// document is stored and before the mail sends it once on retry, with one document.

const TODAY = todayUtc();
const ago = (d: number) => addDays(TODAY, -d);

let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
let w: StatementsWorld;

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  w = await statementsWorld({ env: { SMTP_URL: smtp.url, MAIL_FROM: "Harbor Billing <statements@cusp.example>" } });
}, 30_000);
afterAll(async () => {
  await w.t.close();
  await smtp.close();
});

/** A guarantor with `fields` owing 120.00 since 8 days ago, and a pending statement to email. */
async function emailStatement(first: string, fields: Record<string, unknown>) {
  const g = await w.patient(first, fields, "Mailer");
  await w.entry(g, "charge", 120, ago(8), "Bridge");
  return { st: await w.ok(w.post("/statements", { guarantor_uuid: g, mode: "email" }), 202) };
}

const receivedBy = (address: string) => smtp.received.filter((r) => r.envelope.to.some((to) => to.toLowerCase() === address));

describe("mode email", () => {
  test("a guarantor who accepts email: the message arrives with the PDF attached, and the statement is sent", async () => {
    const { st } = await emailStatement("Mia", { email: "Mia@Example.com", receives_email: true });
    const before = w.events.length;
    expect(await w.runRender(st.id)).toEqual({ statement_id: st.id, outcome: "sent", document_id: st.id });
    const sent = await w.ok(w.get(`/statements/${st.id}`), 200);
    expect(sent).toMatchObject({ status: "sent", status_reason: null, document_uuid: st.id, amount_due: "120.00", version: 3 });
    expect(sent.sent_at).toEqual(expect.any(String));

    const [msg, ...more] = receivedBy("mia@example.com");
    expect(more).toEqual([]);
    expect(msg!.envelope.from).toBe("statements@cusp.example");
    expect(msg!.mail.subject).toBe("Your statement from Harbor Dental");
    expect(msg!.mail.replyTo?.value[0]?.address).toBe("billing@harbor.example");
    expect(msg!.mail.text).toContain("Dear Mia Mailer,");
    expect(msg!.mail.text).toContain(`The amount due is $120.00, due by ${longDate(addDays(TODAY, 30))}.`);
    const [pdf, ...others] = msg!.mail.attachments;
    expect(others).toEqual([]);
    expect(pdf!.contentType).toBe("application/pdf");
    expect(pdf!.filename).toBe(`statement-${TODAY}.pdf`);
    // the attachment is the stored document, byte for byte, and reads as the statement
    expect(Buffer.from(pdf!.content).equals(Buffer.from((await w.pdfOf(st.id)).bytes))).toBe(true);
    const text = (await pdfText(new Uint8Array(pdf!.content))).pages.join(" ").replace(/\s+/g, " ");
    for (const s of ["Harbor Dental", "Mia Mailer", `${longDate(ago(8))} Bridge $120.00`, "Amount due: $120.00", "REMITTANCE"]) expect(text).toContain(s);

    await busDrained(w.t.rt.bus);
    expect(
      w.events
        .slice(before)
        .filter((e) => e.resource_id === st.id && e.type.startsWith("statement."))
        .map((e) => [e.type, e.data]),
    ).toEqual([
      ["statement.ready", { id: st.id, changed_fields: expect.any(Array) }],
      ["statement.sent", { id: st.id, changed_fields: ["status", "sent_at"] }],
    ]);
    const audit = (await auditOf(w.t, w.orgA, st.id)).filter((a) => a.resource_type === "statement").map((a) => a.action);
    expect(audit.sort()).toEqual(["statement.created", "statement.ready", "statement.sent"]);
    // run again: nothing sent twice
    expect(await w.runRender(st.id, 1)).toMatchObject({ outcome: "already_sent" });
    expect(receivedBy("mia@example.com")).toHaveLength(1);
  });

  test("a guarantor who does not accept email, or has no address: ready with the reason, no mail", async () => {
    const optedOut = await emailStatement("Noel", { email: "noel@example.com", receives_email: false });
    const noAddress = await emailStatement("Nia", { receives_email: true });
    for (const { st } of [optedOut, noAddress]) expect(await w.runRender(st.id)).toMatchObject({ outcome: "ready", document_id: st.id });
    expect(await w.ok(w.get(`/statements/${optedOut.st.id}`), 200)).toMatchObject({
      status: "ready",
      status_reason: "Not emailed: the guarantor does not accept email",
      sent_at: null,
    });
    expect(await w.ok(w.get(`/statements/${noAddress.st.id}`), 200)).toMatchObject({
      status: "ready",
      status_reason: "Not emailed: the guarantor has no email address",
    });
    expect(receivedBy("noel@example.com")).toEqual([]);
    // the PDF is there to print
    expect((await w.documentRows()).filter((d) => d.id === optedOut.st.id || d.id === noAddress.st.id)).toHaveLength(2);
  });

  test("the relay refuses: retried; the last attempt marks it failed (not emailed), the document stays", async () => {
    const { st } = await emailStatement("Rex", { email: "rex@example.com", receives_email: true });
    smtp.state.refuse = true;
    try {
      await expect(w.runRender(st.id, 0)).rejects.toThrow(/451|busy/i);
      // the PDF is stored and the statement ready: the retry only mails
      expect(await w.ok(w.get(`/statements/${st.id}`), 200)).toMatchObject({ status: "ready", document_uuid: st.id });
      await expect(w.runRender(st.id, 1)).rejects.toThrow(/451|busy/i);
      expect(await w.runRender(st.id, 3)).toMatchObject({ outcome: "failed", document_id: st.id });
    } finally {
      smtp.state.refuse = false;
    }
    const failed = await w.ok(w.get(`/statements/${st.id}`), 200);
    expect(failed.status).toBe("failed");
    expect(failed.status_reason).toMatch(/^Not emailed: .*(451|busy)/i);
    expect(failed.document_uuid).toBe(st.id);
    expect(receivedBy("rex@example.com")).toEqual([]);
    expect((await w.documentRows()).filter((d) => d.id === st.id)).toHaveLength(1);
  });

  test("killed after the document is stored, before the mail: the retry mails it once, and there is still one document", async () => {
    const { st } = await emailStatement("Ida", { email: "ida@example.com", receives_email: true });
    statementHooks.beforeMail = ({ statementId, attempt }) => {
      if (statementId === st.id && attempt === 1) throw new Error("worker killed before the mail");
    };
    try {
      await expect(w.runRender(st.id, 0)).rejects.toThrow("worker killed before the mail");
      expect(await w.ok(w.get(`/statements/${st.id}`), 200)).toMatchObject({ status: "ready", sent_at: null });
      expect(receivedBy("ida@example.com")).toEqual([]);
      expect(await w.runRender(st.id, 1)).toMatchObject({ outcome: "sent" });
    } finally {
      statementHooks.beforeMail = undefined;
    }
    expect(receivedBy("ida@example.com")).toHaveLength(1);
    expect((await w.documentRows()).filter((d) => d.id === st.id)).toHaveLength(1);
    expect(await w.versionRows(st.id)).toHaveLength(1);
  });
});

describe("without SMTP_URL: the mail_outbox table", () => {
  let local: StatementsWorld;
  beforeAll(async () => {
    local = await statementsWorld();
  }, 30_000);
  afterAll(() => local.t.close());

  test("the message is kept in the outbox, naming its attachment; the statement is sent", async () => {
    const g = await local.patient("Olga", { email: "olga@example.com", receives_email: true });
    await local.entry(g, "charge", 40, ago(1), "X-ray");
    const st = await local.ok(local.post("/statements", { guarantor_uuid: g, mode: "email" }), 202);
    expect(await local.runRender(st.id)).toMatchObject({ outcome: "sent" });
    const [row] = await readOutbox(local.t.rt.control, { to: "olga@example.com" });
    expect(row!.subject).toBe("Your statement from Harbor Dental");
    expect(row!.text).toMatch(new RegExp(`\\[attached: statement-${TODAY}\\.pdf, application/pdf, \\d+ bytes; not kept in the outbox\\]`));
  });
});
