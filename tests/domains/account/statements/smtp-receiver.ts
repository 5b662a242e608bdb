// A real SMTP server on 127.0.0.1 (the smtp-server package) that keeps every
// message it accepts, parsed with mailparser, for the statement mail tests.
// `refuse` makes it answer DATA with a temporary failure, as a relay that is
// down for a moment would.
import type { AddressInfo } from "node:net";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

export type Received = { envelope: { from: string; to: string[] }; mail: ParsedMail };

export async function startSmtpReceiver() {
  const received: Received[] = [];
  const state = { refuse: false };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        if (state.refuse) {
          const err = Object.assign(new Error("Mailbox busy, try again later"), { responseCode: 451 });
          return callback(err);
        }
        simpleParser(Buffer.concat(chunks))
          .then((mail) => {
            received.push({
              envelope: {
                from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
                to: session.envelope.rcptTo.map((r) => r.address),
              },
              mail,
            });
            callback();
          })
          .catch((err) => callback(err));
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    state,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
