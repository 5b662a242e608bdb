import type nodemailer from "nodemailer";
import { onFirstUse } from "@/platform/on-first-use";
import type { Mailer, MailMessage } from "./types";

const loadNodemailer = onFirstUse(() => require("nodemailer") as typeof nodemailer);

/**
 * Production mail over SMTP (nodemailer), from `SMTP_URL` such as
 * `smtp://user:pass@host:587` (STARTTLS when the server offers it) or
 * `smtps://…:465`. Timeouts are short so a dead relay fails a send in seconds;
 * nodemailer's own logger stays off (messages carry one-time tokens).
 */
export class SmtpMailer implements Mailer {
  readonly kind = "smtp" as const;
  private readonly transport: ReturnType<typeof nodemailer.createTransport>;

  constructor(
    url: string,
    private readonly from: string,
  ) {
    this.transport = loadNodemailer().createTransport({ url, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000, logger: false });
  }

  async send(message: MailMessage): Promise<void> {
    await this.transport.sendMail({
      from: this.from,
      to: message.to,
      replyTo: message.replyTo,
      subject: message.subject,
      text: message.text,
      html: message.html,
      attachments: message.attachments?.map((a) => ({ filename: a.filename, content: Buffer.from(a.content), contentType: a.contentType })),
    });
  }

  async close(): Promise<void> {
    this.transport.close();
  }
}
