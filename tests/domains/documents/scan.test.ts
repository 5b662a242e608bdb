// The virus scanners the documents.scan job calls (docs/documents/virus-scanning.md):
// the builtin scanner's EICAR rules (the test file, and the string embedded
// anywhere, across chunks) and hash list; the clamd client against a
// fake clamd that records the exact bytes it was sent; and the same client
// against the real clamd of scripts/services/clamd.ts, whose cases are
// reported as skipped, with the reason, when clamd cannot be had.
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Socket, SocketHandler } from "bun";
import { createBuiltinScanner, EICAR, isEicar, parseSignatures } from "@/domains/documents/processing/scan/builtin";
import { createClamdScanner, frameHeader, parseClamdUrl } from "@/domains/documents/processing/scan/clamd";
import { createScanner } from "@/domains/documents/processing/scan/factory";
import { ScanError, type Scanner } from "@/domains/documents/processing/scan/types";
import { CLAMD_TEST_MARKER, CLAMD_TEST_URL, clamdUnavailable } from "@tests/support/clamd";

const clamdDown = await clamdUnavailable("documents/scan.test", "the real-clamd cases");

const text = (s: string) => new TextEncoder().encode(s);
const concat = (...parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));

/** Streams `bytes` in pieces of `size` bytes, as a storage read would. */
async function* inPieces(bytes: Uint8Array, size: number): AsyncIterable<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

/** Deterministic filler (no accidental signatures), so every run scans the same bytes. */
function filler(length: number, seed = 7): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed;
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

async function scanError(promise: Promise<unknown>): Promise<ScanError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(ScanError);
    return err as ScanError;
  }
  throw new Error("expected a ScanError, the scan resolved");
}

const tmp = mkdtempSync(join(tmpdir(), "cusp-scan-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("builtin scanner", () => {
  const scanner = createBuiltinScanner();

  test("the 68-byte EICAR test file is found as Eicar-Test-Signature", async () => {
    expect(EICAR.length).toBe(68);
    expect(await scanner.scan(EICAR)).toEqual({ clean: false, signature: "Eicar-Test-Signature", engine: "builtin" });
  });

  test("EICAR followed only by space, tab, CR, LF or Ctrl-Z is found while the file is at most 128 bytes", async () => {
    const padded = concat(EICAR, text("\r\n\t \x1a"));
    expect(await scanner.scan(padded)).toEqual({ clean: false, signature: "Eicar-Test-Signature", engine: "builtin" });
    const to128 = concat(EICAR, text(" ".repeat(60)));
    expect(to128.length).toBe(128);
    expect(await scanner.scan(to128)).toEqual({ clean: false, signature: "Eicar-Test-Signature", engine: "builtin" });
    // one byte past the standard's 128 is not the test file (the string is still found, as embedded)
    expect(isEicar(concat(EICAR, text(" ".repeat(61))), 129)).toBe(false);
    // anything but whitespace after it is not the test file either
    expect(isEicar(concat(EICAR, text("\nx")), 70)).toBe(false);
  });

  test("EICAR arriving one byte at a time is found the same", async () => {
    expect(await scanner.scan(inPieces(concat(EICAR, text("\n")), 1))).toEqual({ clean: false, signature: "Eicar-Test-Signature", engine: "builtin" });
  });

  test("EICAR in the middle of a larger file is not the test file but is found as Eicar-Test-Signature.Embedded", async () => {
    const embedded = concat(text("%PDF-1.7\n"), EICAR, filler(1000));
    expect(await scanner.scan(embedded)).toEqual({ clean: false, signature: "Eicar-Test-Signature.Embedded", engine: "builtin" });
    expect(isEicar(concat(text(" "), EICAR), 69)).toBe(false);
    // the test file itself contains the string too: the file rule wins
    expect(await scanner.scan(concat(EICAR, text("\n")))).toEqual({ clean: false, signature: "Eicar-Test-Signature", engine: "builtin" });
    // past the file rule's 128 bytes, or followed by more than padding, it is the embedded string
    expect(await scanner.scan(concat(EICAR, text(" ".repeat(61))))).toEqual({ clean: false, signature: "Eicar-Test-Signature.Embedded", engine: "builtin" });
    expect(await scanner.scan(concat(EICAR, text("\nx")))).toEqual({ clean: false, signature: "Eicar-Test-Signature.Embedded", engine: "builtin" });
  });

  test("EICAR embedded across chunk boundaries is found, in 1-byte and 5-byte chunks", async () => {
    // 1000 + 3 bytes before it: with 5-byte chunks the string starts mid-chunk and spans 14 of them
    const document = concat(filler(1003), EICAR, filler(2000, 3));
    for (const size of [1, 5]) {
      expect(await scanner.scan(inPieces(document, size))).toEqual({ clean: false, signature: "Eicar-Test-Signature.Embedded", engine: "builtin" });
    }
    // the string as the very last bytes, and split between two large chunks
    const atEnd = concat(filler(70_000), EICAR);
    expect(await scanner.scan(inPieces(atEnd, 65_536))).toEqual({ clean: false, signature: "Eicar-Test-Signature.Embedded", engine: "builtin" });
    const split = concat(filler(65_536 - 30), EICAR, filler(65_536));
    expect(await scanner.scan(inPieces(split, 65_536))).toEqual({ clean: false, signature: "Eicar-Test-Signature.Embedded", engine: "builtin" });
  });

  test("EICAR inside a minimal PDF is found, in a stream and after %%EOF", async () => {
    const inStream = concat(text("%PDF-1.4\n1 0 obj\n<< /Length 68 >>\nstream\n"), EICAR, text("\nendstream\nendobj\n%%EOF\n"));
    expect(await scanner.scan(inStream)).toEqual({ clean: false, signature: "Eicar-Test-Signature.Embedded", engine: "builtin" });
    expect(await scanner.scan(inPieces(inStream, 5))).toEqual({ clean: false, signature: "Eicar-Test-Signature.Embedded", engine: "builtin" });
    const appended = concat(text("%PDF-1.4\n1 0 obj\n<< >>\nendobj\n%%EOF\n"), EICAR);
    expect(await scanner.scan(appended)).toEqual({ clean: false, signature: "Eicar-Test-Signature.Embedded", engine: "builtin" });
  });

  test("a near miss, EICAR with one byte changed, is not flagged, whole or in 1-byte chunks", async () => {
    for (const at of [0, 33, 67]) {
      const nearMiss = new Uint8Array(EICAR);
      nearMiss[at] ^= 0x01;
      const pdf = concat(text("%PDF-1.4\n"), nearMiss, text("\n%%EOF\n"));
      expect(await scanner.scan(pdf)).toEqual({ clean: true, engine: "builtin" });
      expect(await scanner.scan(inPieces(pdf, 1))).toEqual({ clean: true, engine: "builtin" });
      expect(await scanner.scan(nearMiss)).toEqual({ clean: true, engine: "builtin" });
    }
    // the string cut short at the end of the file is not it either
    expect(await scanner.scan(concat(text("%PDF-1.4\n"), EICAR.subarray(0, 67)))).toEqual({ clean: true, engine: "builtin" });
  });

  test("a clean file is clean", async () => {
    expect(await scanner.scan(filler(100_000))).toEqual({ clean: true, engine: "builtin" });
    expect(await scanner.scan(new Uint8Array(0))).toEqual({ clean: true, engine: "builtin" });
  });

  test("a file whose SHA-256 is listed is found under its name, hashed while streamed in many small chunks", async () => {
    const known = filler(50_000, 99);
    const sha256 = createHash("sha256").update(known).digest("hex");
    const listed = createBuiltinScanner({ signatures: parseSignatures(`# known bad files\n\nKnown.Bad.File:${sha256.toUpperCase()}\n`) });
    expect(await listed.scan(inPieces(known, 7))).toEqual({ clean: false, signature: "Known.Bad.File", engine: "builtin" });
    // one byte more is another file
    expect(await listed.scan(inPieces(concat(known, text("!")), 7))).toEqual({ clean: true, engine: "builtin" });
  });

  test("a signatures file with a malformed line is an error naming the file and the line", () => {
    const good = `Good.One:${"a".repeat(64)}`;
    expect(() => parseSignatures(`${good}\n# comment\nBad.One:abc123\n`, "sigs.txt")).toThrow(
      'sigs.txt line 3: expected "name:sha256hex" (64 hex digits), got "Bad.One:abc123"',
    );
    expect(() => parseSignatures(`${good}\nTwice:${"A".repeat(64)}`, "sigs.txt")).toThrow('sigs.txt line 2: the hash of "Twice" is already listed on line 1');
    const file = join(tmp, "malformed.sigs");
    writeFileSync(file, `${good}\nno colon here\n`);
    expect(() => createScanner({ signaturesFile: file })).toThrow(`${file} line 2: expected "name:sha256hex" (64 hex digits), got "no colon here"`);
  });

  test("a source that fails while read is a retryable ScanError, not a verdict", async () => {
    async function* broken() {
      yield text("first bytes");
      throw new Error("storage read failed");
    }
    const err = await scanError(scanner.scan(broken()));
    expect(err.reason).toBe("source");
    expect(err.retryable).toBe(true);
    expect(err.message).toBe("Reading the document failed: storage read failed");
  });
});

describe("createScanner", () => {
  test("clamd when a URL is given, else builtin with the file's signatures", async () => {
    expect(createScanner({ clamdUrl: "tcp://127.0.0.1:3310" }).kind).toBe("clamd");
    expect(createScanner({}).kind).toBe("builtin");
    const file = join(tmp, "good.sigs");
    const content = text("listed content");
    writeFileSync(file, `Listed:${createHash("sha256").update(content).digest("hex")}\n`);
    expect(await createScanner({ signaturesFile: file }).scan(content)).toEqual({ clean: false, signature: "Listed", engine: "builtin" });
  });

  test("start-up errors: a bad URL, a missing file, a signatures file next to clamd", () => {
    expect(() => createScanner({ clamdUrl: "http://clamd:3310" })).toThrow('CLAMD_URL must be tcp://host:port or unix:///path, got "http://clamd:3310"');
    expect(() => createScanner({ signaturesFile: join(tmp, "absent.sigs") })).toThrow(`SCAN_SIGNATURES_FILE ${join(tmp, "absent.sigs")} cannot be read`);
    expect(() => createScanner({ clamdUrl: "tcp://127.0.0.1:3310", signaturesFile: join(tmp, "good.sigs") })).toThrow(
      "SCAN_SIGNATURES_FILE is for the builtin scanner",
    );
    expect(parseClamdUrl("tcp://[::1]:3311")).toEqual({ host: "::1", port: 3311 });
    expect(parseClamdUrl("unix:///run/clamav/clamd.ctl")).toEqual({ path: "/run/clamav/clamd.ctl" });
  });
});

// A clamd stand-in: records every byte each connection sends and answers what
// `answer` says once it returns a string (undefined: keep waiting, maybe forever).
type Conversation = { bytes: Uint8Array; command: string; frames: number[]; complete: boolean };
type FakeClamd = { url: string; conversations: Conversation[]; stop(): void };

function parseConversation(bytes: Uint8Array): Conversation {
  const nul = bytes.indexOf(0);
  const command = nul < 0 ? "" : new TextDecoder().decode(bytes.subarray(0, nul + 1));
  const frames: number[] = [];
  let complete = false;
  if (command === "zINSTREAM\0") {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let at = nul + 1;
    while (at + 4 <= bytes.length) {
      const length = view.getUint32(at, false);
      if (at + 4 + length > bytes.length) break;
      frames.push(length);
      at += 4 + length;
      if (length === 0) {
        complete = true;
        break;
      }
    }
  }
  return { bytes, command, frames, complete };
}

const fakes: FakeClamd[] = [];
afterEach(() => {
  for (const fake of fakes.splice(0)) fake.stop();
});

function startFakeClamd(
  answer: (c: Conversation) => string | undefined,
  listen: { unix: string } | { hostname: string; port: number } = { hostname: "127.0.0.1", port: 0 },
): FakeClamd {
  const conversations: Conversation[] = [];
  const received = new Map<Socket<{ index: number }>, Uint8Array[]>();
  const handlers: SocketHandler<{ index: number }> = {
    open(socket) {
      socket.data = { index: conversations.length };
      conversations.push(parseConversation(new Uint8Array(0)));
      received.set(socket, []);
    },
    data(socket, data) {
      const parts = received.get(socket);
      if (!parts) return; // answered already
      parts.push(new Uint8Array(data));
      const conversation = parseConversation(concat(...parts));
      conversations[socket.data.index] = conversation;
      const reply = answer(conversation);
      if (reply === undefined) return;
      received.delete(socket);
      socket.end(reply);
    },
    close(socket) {
      received.delete(socket);
    },
  };
  const server = "unix" in listen ? Bun.listen({ unix: listen.unix, socket: handlers }) : Bun.listen({ ...listen, socket: handlers });
  const url = "unix" in listen ? `unix://${listen.unix}` : `tcp://127.0.0.1:${"port" in server ? server.port : 0}`;
  const fake = { url, conversations, stop: () => server.stop(true) };
  fakes.push(fake);
  return fake;
}

/** Answers `reply` once the whole INSTREAM (zero-length frame included) has arrived. */
const afterStream = (reply: string) => (c: Conversation) => (c.complete ? reply : undefined);

describe("clamd client against a fake clamd", () => {
  test("INSTREAM framing: the command, frames of at most chunkBytes with a 4-byte big-endian length, empty chunks skipped, a zero-length end", async () => {
    const fake = startFakeClamd(afterStream("stream: OK\0"));
    const scanner = createClamdScanner({ url: fake.url, chunkBytes: 4 });
    async function* source() {
      yield text("hello");
      yield new Uint8Array(0);
      yield text("world!");
    }
    expect(await scanner.scan(source())).toEqual({ clean: true, engine: "clamd" });
    expect(fake.conversations).toHaveLength(1);
    expect(fake.conversations[0].bytes).toEqual(
      concat(
        text("zINSTREAM\0"),
        new Uint8Array([0, 0, 0, 4]),
        text("hell"),
        new Uint8Array([0, 0, 0, 1]),
        text("o"),
        new Uint8Array([0, 0, 0, 4]),
        text("worl"),
        new Uint8Array([0, 0, 0, 2]),
        text("d!"),
        new Uint8Array([0, 0, 0, 0]),
      ),
    );
  });

  test("a large buffer goes in 64 KiB frames and the bytes arrive unchanged", async () => {
    const fake = startFakeClamd(afterStream("stream: OK\0"));
    const document = filler(200 * 1024);
    expect(await createClamdScanner({ url: fake.url }).scan(document)).toEqual({ clean: true, engine: "clamd" });
    const { bytes, frames } = fake.conversations[0];
    expect(frames).toEqual([65536, 65536, 65536, 8192, 0]);
    const payload = concat(...[0, 1, 2, 3].map((i) => bytes.subarray(10 + i * 65540 + 4, 10 + i * 65540 + 4 + frames[i])));
    expect(createHash("sha256").update(payload).digest("hex")).toBe(createHash("sha256").update(document).digest("hex"));
    expect(frameHeader(65536)).toEqual(new Uint8Array([0, 1, 0, 0]));
  });

  test("FOUND gives the signature, with spaces and dots kept", async () => {
    const fake = startFakeClamd(afterStream("stream: Win.Test.EICAR_HDB-1 FOUND\0"));
    expect(await createClamdScanner({ url: fake.url }).scan(EICAR)).toEqual({ clean: false, signature: "Win.Test.EICAR_HDB-1", engine: "clamd" });
  });

  test("the size limit refusal is a ScanError that is not retried, even when clamd answers while we still send", async () => {
    // clamd answers and hangs up as soon as the stream passes its StreamMaxLength
    const fake = startFakeClamd((c) => (c.bytes.length > 300_000 ? "INSTREAM size limit exceeded. ERROR\0" : undefined));
    let piecesRead = 0;
    async function* endless() {
      for (;;) {
        piecesRead++;
        yield filler(64 * 1024);
      }
    }
    const err = await scanError(createClamdScanner({ url: fake.url }).scan(endless()));
    expect(err.reason).toBe("size_limit");
    expect(err.retryable).toBe(false);
    expect(err.message).toBe("clamd refused the document: INSTREAM size limit exceeded. ERROR");
    // the source was abandoned, not read to its (missing) end
    expect(piecesRead).toBeLessThan(200);
  });

  test("any other ERROR is a retryable ScanError; an unknown reply is a protocol error; never a clean verdict", async () => {
    const failing = startFakeClamd(afterStream("Can't allocate memory ERROR\0"));
    const engine = await scanError(createClamdScanner({ url: failing.url }).scan(text("some file")));
    expect([engine.reason, engine.retryable, engine.message]).toEqual(["engine", true, "clamd could not scan the document: Can't allocate memory ERROR"]);

    const odd = startFakeClamd(afterStream("stream: MAYBE\0"));
    const protocol = await scanError(createClamdScanner({ url: odd.url }).scan(text("some file")));
    expect([protocol.reason, protocol.retryable, protocol.message]).toEqual(["protocol", false, 'Unexpected reply from clamd: "stream: MAYBE"']);
  });

  test("a closed port is a retryable ScanError naming the refusal", async () => {
    const fake = startFakeClamd(() => undefined);
    const url = fake.url;
    fake.stop();
    const err = await scanError(createClamdScanner({ url }).scan(text("some file")));
    expect(err.reason).toBe("unreachable");
    expect(err.retryable).toBe(true);
    expect(err.message).toBe(`connecting to clamd at ${url.slice("tcp://".length)} failed: ECONNREFUSED`);
  });

  test("clamd hanging up without a word is a retryable ScanError", async () => {
    const fake = startFakeClamd((c) => (c.complete ? "" : undefined));
    const err = await scanError(createClamdScanner({ url: fake.url }).scan(text("some file")));
    expect(err.reason).toBe("unreachable");
    expect(err.retryable).toBe(true);
  });

  test("no answer within timeoutMs is a retryable ScanError, raised on time", async () => {
    const fake = startFakeClamd(() => undefined);
    const started = performance.now();
    const err = await scanError(createClamdScanner({ url: fake.url, timeoutMs: 300 }).scan(text("some file")));
    const elapsed = performance.now() - started;
    expect(err.reason).toBe("timeout");
    expect(err.retryable).toBe(true);
    expect(err.message).toBe(`clamd at ${fake.url.slice("tcp://".length)} gave no answer within 300 ms`);
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(2_000);
  });

  test("close() ends a scan in flight with a retryable ScanError and refuses new ones", async () => {
    const fake = startFakeClamd(() => undefined);
    const scanner = createClamdScanner({ url: fake.url });
    const inFlight = scanError(scanner.scan(text("some file")));
    while (fake.conversations.length === 0) await Bun.sleep(5);
    await scanner.close();
    expect((await inFlight).reason).toBe("closed");
    const after = await scanError(scanner.scan(text("some file")));
    expect([after.reason, after.retryable]).toEqual(["closed", true]);
  });

  test("ping sends zPING and wants PONG; over a unix socket too", async () => {
    const socketPath = join(tmp, "fake-clamd.sock");
    const fake = startFakeClamd((c) => (c.command === "zPING\0" ? "PONG\0" : c.complete ? "stream: OK\0" : undefined), { unix: socketPath });
    const scanner = createClamdScanner({ url: `unix://${socketPath}` });
    await scanner.ping();
    expect(await scanner.scan(text("some file"))).toEqual({ clean: true, engine: "clamd" });
    expect(fake.conversations.map((c) => c.command)).toEqual(["zPING\0", "zINSTREAM\0"]);

    const wrong = startFakeClamd(() => "PANG\0");
    const err = await scanError(createClamdScanner({ url: wrong.url }).ping());
    expect(err.message).toBe(`clamd at ${wrong.url.slice("tcp://".length)} answered PING with "PANG"`);
  });
});

describe("clamd client against the real clamd (scripts/services/clamd.ts)", () => {
  const real = (): Scanner => createClamdScanner({ url: CLAMD_TEST_URL ?? "", timeoutMs: 30_000 });

  test.skipIf(!!clamdDown)("ping", async () => {
    await real().ping();
  });

  test.skipIf(!!clamdDown)("EICAR is found under the local database's name for it", async () => {
    // clamd appends .UNOFFICIAL to every signature not signed by ClamAV. The
    // bare test file matches eicar.hdb and the body signature of
    // eicar-embedded.ndb alike; clamd ends the scan at the body match, before
    // it compares the whole-file hash, so it reports the .ndb name.
    expect(await real().scan(EICAR)).toEqual({ clean: false, signature: "Eicar-Test-Signature.Embedded.UNOFFICIAL", engine: "clamd" });
  });

  test.skipIf(!!clamdDown)("a PDF carrying EICAR is FOUND, in a stream or after %%EOF, split across frames", async () => {
    const inStream = concat(text("%PDF-1.4\n1 0 obj\n<< /Length 68 >>\nstream\n"), EICAR, text("\nendstream\nendobj\n%%EOF\n"));
    expect(await real().scan(inStream)).toEqual({ clean: false, signature: "Eicar-Test-Signature.Embedded.UNOFFICIAL", engine: "clamd" });
    const appended = concat(text("%PDF-1.4\n"), filler(65_536 - 40), text("\n%%EOF\n"), EICAR);
    expect(await real().scan(inPieces(appended, 5_000))).toEqual({ clean: false, signature: "Eicar-Test-Signature.Embedded.UNOFFICIAL", engine: "clamd" });
  });

  test.skipIf(!!clamdDown)("a PDF carrying EICAR with one byte changed is OK", async () => {
    const nearMiss = new Uint8Array(EICAR);
    nearMiss[33] ^= 0x01;
    expect(await real().scan(concat(text("%PDF-1.4\n"), nearMiss, text("\n%%EOF\n")))).toEqual({ clean: true, engine: "clamd" });
  });

  test.skipIf(!!clamdDown)("a clean PNG-like file streamed in pieces is OK", async () => {
    const png = concat(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), filler(300_000));
    expect(await real().scan(inPieces(png, 16 * 1024))).toEqual({ clean: true, engine: "clamd" });
  });

  test.skipIf(!!clamdDown)("our own marker is found in the middle of a file, across a frame boundary", async () => {
    const marker = text(CLAMD_TEST_MARKER);
    const document = concat(filler(65_536 - 10), marker, filler(200_000));
    expect(await real().scan(inPieces(document, 1000))).toEqual({ clean: false, signature: "Cusp-Test-Marker.UNOFFICIAL", engine: "clamd" });
  });

  test.skipIf(!!clamdDown)("a stream past StreamMaxLength (60M) is refused with a ScanError, not passed as clean", async () => {
    const piece = filler(1024 * 1024);
    async function* big() {
      for (let i = 0; i < 70; i++) yield piece;
    }
    const err = await scanError(real().scan(big()));
    expect([err.reason, err.retryable, err.message]).toEqual(["size_limit", false, "clamd refused the document: INSTREAM size limit exceeded. ERROR"]);
  });
});
