/** One message to one recipient; `text` is always sent, `html` is the optional rich alternative. */
export type MailMessage = { to: string; subject: string; text: string; html?: string };

/**
 * Where account mail goes (docs/auth/account.md): the control database's
 * mail_outbox by default, SMTP when SMTP_URL is set. Implementations never log
 * a message's body: it carries one-time tokens.
 */
export type Mailer = {
  readonly kind: "outbox" | "smtp";
  send(message: MailMessage): Promise<void>;
  close(): Promise<void>;
};
