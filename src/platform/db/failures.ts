import { ServiceUnavailable } from "@/platform/errors";
import { ServiceDown } from "@/platform/async/breaker";

// What a client is told when the storage or a shared service under a request
// fails, rather than a bare 500 (docs/platform/reliability.md): a full disk or
// an I/O error under a database is 503 (nothing was written: SQLite rolls the
// transaction back), so is a remote database (a libSQL shard, a remote control
// database) that cannot be reached, and a shared service whose breaker refuses
// the call. Each is worth retrying after a moment.

const FULL = /SQLITE_FULL|ENOSPC|EDQUOT|EFBIG|database or disk is full/;
const IO = /SQLITE_IOERR|SQLITE_CANTOPEN|EIO\b|disk I\/O error/;
/** A remote server not reachable: a libSQL database (@libsql/client over HTTP or WebSockets), S3 (the AWS SDK). */
const UNREACHABLE = /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|ConnectionRefused|HRANA_WEBSOCKET_ERROR|SERVER_ERROR|Unable to connect/;

/** The 503 an error under a request means, or null when it is not a storage or service failure. */
export function storageFailureOf(error: unknown): ServiceUnavailable | null {
  let e = error as { code?: unknown; errno?: unknown; message?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; e && typeof e === "object" && depth < 4; depth++, e = e.cause as typeof e) {
    if (e instanceof ServiceDown) return new ServiceUnavailable(`A service this request needs (${e.service}) is not answering; try again shortly`, 1);
    const text = `${e.code ?? ""} ${typeof e.message === "string" ? e.message : ""}`;
    if (FULL.test(text)) return new ServiceUnavailable("The service's storage is full: nothing was written; try again later", 30);
    if (IO.test(text)) return new ServiceUnavailable("The service's storage failed: nothing was written; try again shortly", 5);
    if (UNREACHABLE.test(text)) return new ServiceUnavailable("A service this request needs cannot be reached; try again shortly", 2);
  }
  return null;
}
