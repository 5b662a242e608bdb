// `bun run scripts/mail-outbox.ts [--limit N] [--to EMAIL]`: the latest messages the
// embedded mailer wrote to the control database's mail_outbox (no SMTP_URL set;
// default 5), the newest printed last, on the same DATA_DIR / CONTROL_DATABASE_URL
// the service uses.
// They hold one-time links: this is a developer's tool, not for shared logs.
import { parseArgs } from "node:util";
import { loadConfig } from "@/config";
import { controlDatabaseTarget, openDatabase } from "@/platform/db/open";
import { readOutbox } from "@/platform/mail/outbox";
import { controlSchema } from "@db/control/schema";

const { values } = parseArgs({ options: { limit: { type: "string", default: "5" }, to: { type: "string" } } });
const limit = Number(values.limit);
if (!Number.isInteger(limit) || limit < 1) {
  console.error("--limit must be a positive whole number");
  process.exit(2);
}

const config = loadConfig({ LOG_LEVEL: "silent", ...process.env });
const control = openDatabase(controlDatabaseTarget(config.control.url), config.control.authToken, controlSchema);
try {
  const messages = await readOutbox(control, { to: values.to, limit });
  if (!messages.length) console.log(values.to ? `No messages to ${values.to} in the outbox.` : "The outbox is empty.");
  for (const m of messages.reverse()) {
    console.log(`--- ${m.created_at}  ${m.id}`);
    console.log(`To: ${m.to}`);
    console.log(`Subject: ${m.subject}`);
    console.log("");
    console.log(m.text.trimEnd());
    console.log("");
  }
} catch (err) {
  if (String(err).includes("no such table")) {
    console.error("The control database has no mail_outbox yet: start the service once (npm start) so it migrates.");
    process.exit(1);
  }
  throw err;
} finally {
  control.close();
}
