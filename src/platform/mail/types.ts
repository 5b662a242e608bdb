/** A file sent with a message (a statement's PDF). */
export type MailAttachment = { filename: string; content: Uint8Array; contentType: string };

/**
 * One message to one recipient; `text` is always sent, `html` is the optional
 * rich alternative; `replyTo` where answers should go (a practice's address);
 * `attachments` files sent with it.
 */
export type MailMessage = { to: string; subject: string; text: string; html?: string; replyTo?: string; attachments?: MailAttachment[] };

/**
 * Where mail goes (docs/auth/account.md, docs/account/statements.md): the
 * control database's mail_outbox by default, SMTP when SMTP_URL is set.
 * Implementations never log a message's body: it carries one-time tokens
 * or a patient's account.
 */
export type Mailer = {
  readonly kind: "outbox" | "smtp";
  send(message: MailMessage): Promise<void>;
  close(): Promise<void>;
};
