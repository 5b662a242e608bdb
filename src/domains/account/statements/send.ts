import type { Mailer } from "@/platform/mail/types";
import { dollars, longDate } from "./render";

// The statement by email (docs/account/statements.md, "Email"): one message to
// the guarantor with the PDF attached, through the service's mailer (SMTP at
// SMTP_URL from MAIL_FROM, else the mail_outbox table). Answers go to the
// practice's address when it has one.

export type StatementMail = {
  to: string;
  guarantorName: string;
  practiceName: string;
  practiceEmail: string | null;
  statementDate: string;
  amountDueCents: number;
  dueDate: string;
  pdf: Uint8Array;
};

/** A guarantor statements may be emailed to: opted in, with an address. */
export const emailableGuarantor = (g: { receives_email: boolean; email: string | null }) => g.receives_email && !!g.email?.trim();

/** Why a statement to email was not emailed, for its status_reason. */
export const notEmailedReason = (g: { receives_email: boolean; email: string | null }) =>
  !g.receives_email ? "Not emailed: the guarantor does not accept email" : "Not emailed: the guarantor has no email address";

export const statementFileName = (statementDate: string) => `statement-${statementDate}.pdf`;

export async function sendStatementMail(mailer: Mailer, m: StatementMail): Promise<void> {
  const due = m.amountDueCents > 0 ? `The amount due is ${dollars(m.amountDueCents)}, due by ${longDate(m.dueDate)}.` : "Nothing is due on this statement.";
  await mailer.send({
    to: m.to.trim(),
    subject: `Your statement from ${m.practiceName}`,
    text: [
      `Dear ${m.guarantorName},`,
      "",
      `Your account statement of ${longDate(m.statementDate)} from ${m.practiceName} is attached (PDF).`,
      due,
      "",
      m.practiceEmail
        ? `Questions about your account? Reply to this message or write to ${m.practiceEmail}.`
        : "Questions about your account? Please call the practice.",
      "",
      m.practiceName,
    ].join("\n"),
    replyTo: m.practiceEmail ?? undefined,
    attachments: [{ filename: statementFileName(m.statementDate), content: m.pdf, contentType: "application/pdf" }],
  });
}
