import type { Config } from "@/config";
import type { ControlDatabase } from "@/platform/db/control";
import type { Logger } from "@/platform/logger";
import type { PlatformRuntime } from "@/platform/runtime";
import { OutboxMailer } from "./outbox";
import { SmtpMailer } from "./smtp";
import type { Mailer } from "./types";

/** SMTP when SMTP_URL is set; otherwise the mail_outbox table of the control database. */
export function createMailer(config: Config, control: ControlDatabase, logger?: Logger): Mailer {
  if (config.mail.smtpUrl) return new SmtpMailer(config.mail.smtpUrl, config.mail.from);
  if (config.production) logger?.warn("SMTP_URL is not set: mail (password resets, verification, statements) is only written to the mail_outbox table");
  return new OutboxMailer(control);
}

/** The process's mailer, made on first use and closed with the runtime. */
export const mailerOf = (rt: Pick<PlatformRuntime, "config" | "control" | "logger" | "shared">): Mailer =>
  rt.shared.get(
    "mailer",
    () => createMailer(rt.config, rt.control, rt.logger),
    (m) => m.close(),
  );
