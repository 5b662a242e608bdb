import { desc, eq } from "drizzle-orm";
import { mailOutbox } from "@db/control/schema";
import type { ControlDatabase } from "@/platform/db/control";
import { all, run } from "@/platform/db/work";
import { newId, nowIso } from "@/platform/ids";
import type { Mailer, MailMessage } from "./types";

export type OutboxMessage = typeof mailOutbox.$inferSelect;

/**
 * The embedded mailer: each message becomes a row of mail_outbox in the control
 * database, never sent anywhere (`sent_at` stays null). Developers read it with
 * `bun run scripts/mail-outbox.ts`; tests read it with `readOutbox`.
 */
export class OutboxMailer implements Mailer {
  readonly kind = "outbox" as const;

  constructor(private readonly control: ControlDatabase) {}

  async send(message: MailMessage): Promise<void> {
    // the table keeps no files: an attachment is named in the text, so a developer sees it was there
    const attached = (message.attachments ?? []).map(
      (a) => `\n[attached: ${a.filename}, ${a.contentType}, ${a.content.byteLength} bytes; not kept in the outbox]`,
    );
    const row = {
      id: newId(),
      to: message.to,
      subject: message.subject,
      text: message.text + attached.join(""),
      html: message.html ?? null,
      created_at: nowIso(),
      sent_at: null,
    };
    await this.control.write((tx) => run(tx.insert(mailOutbox).values(row)));
  }

  async close(): Promise<void> {}
}

/** The newest messages first, optionally only those to `to` (compared lower-case). */
export async function readOutbox(control: ControlDatabase, opts: { to?: string; limit?: number } = {}): Promise<OutboxMessage[]> {
  return await control.read((db) =>
    all<OutboxMessage>(
      db
        .select()
        .from(mailOutbox)
        .where(opts.to ? eq(mailOutbox.to, opts.to.trim().toLowerCase()) : undefined)
        .orderBy(desc(mailOutbox.created_at), desc(mailOutbox.id))
        .limit(opts.limit ?? 20),
    ),
  );
}
