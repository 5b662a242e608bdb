import { Database } from "bun:sqlite";

// WAL checkpoints off the request path. SQLite's automatic checkpoint runs
// inside the COMMIT that crosses 1,000 WAL pages: that request copies the
// pages into the database file and waits for two fsyncs (synchronous =
// NORMAL syncs at checkpoints only), which cost the write path about 30 µs a
// transaction on average and a few ms for the unlucky one (docs/operations/performance.md).
// Here the connections of this process turn the automatic checkpoint off and
// report their commits; a worker thread checkpoints each busy database on its
// own connection (PASSIVE: it never waits for or blocks a reader or writer),
// once a database has taken CHECKPOINT_EVERY commits or INTERVAL_MS after its
// last one. Durability is unchanged: a committed transaction is in the WAL
// either way, and the WAL is what a restart reads. Measured in process
// (bench/profile/write-path.ts): a location create 380 -> 328 µs, a patient
// PATCH 810 -> 718 µs.

/** Commits after which a database is checkpointed at once (about the 1,000 pages of SQLite's own rule). */
const CHECKPOINT_EVERY = 100;
/** How soon after its last commit a quiet database is checkpointed. */
const INTERVAL_MS = 200;
/**
 * SQLite's own checkpoint stays on as a backstop, at 4,000 WAL pages instead
 * of 1,000: under a sustained write load a checkpoint made beside the writer
 * never quite catches up (the WAL can only start over once every frame is
 * copied), so now and then the writer finishes one itself, finding most of
 * the frames copied already.
 */
export const BACKSTOP_PAGES = 4000;
/** After the WAL starts over, its file is cut back to this size (bytes). */
export const WAL_SIZE_LIMIT = 4 * 1024 * 1024;

type Pending = { commits: number; timer: ReturnType<typeof setTimeout> | null };

class WalCheckpoints {
  private worker: Worker | null = null;
  private failed = false;
  private readonly pending = new Map<string, Pending>();

  /** Whether connections should leave checkpoints to this process's checkpointer (false once its worker failed). */
  get active(): boolean {
    return !this.failed;
  }

  /** Start the worker thread now (a process starting its runtime): its own files are open before the first request. */
  start(): void {
    if (this.failed || this.worker) return;
    try {
      this.worker = this.spawn();
    } catch {
      this.failed = true;
    }
  }

  /** After a COMMIT on `path`. */
  committed(path: string): void {
    let p = this.pending.get(path);
    if (!p) {
      p = { commits: 0, timer: null };
      this.pending.set(path, p);
    }
    if (++p.commits >= CHECKPOINT_EVERY) this.request(path);
    else if (!p.timer) {
      p.timer = setTimeout(() => this.request(path), INTERVAL_MS);
      p.timer.unref?.();
    }
  }

  /** The connection to `path` is closing: SQLite checkpoints on the last close itself. */
  forget(path: string): void {
    const p = this.pending.get(path);
    if (p?.timer) clearTimeout(p.timer);
    this.pending.delete(path);
  }

  private request(path: string): void {
    const p = this.pending.get(path);
    if (p?.timer) clearTimeout(p.timer);
    this.pending.delete(path);
    if (this.failed) return;
    try {
      this.worker ??= this.spawn();
      this.worker.postMessage(path);
    } catch {
      this.fallBack(path);
    }
  }

  private spawn(): Worker {
    const worker = new Worker(new URL("./wal-checkpoint-worker.ts", import.meta.url).href);
    (worker as unknown as { unref(): void }).unref(); // it never keeps the process alive
    worker.addEventListener("error", () => {
      this.failed = true;
      this.worker = null;
    });
    return worker;
  }

  /** Without a worker: checkpoint on a connection of our own, here (the connections re-enable their automatic checkpoint). */
  private fallBack(path: string): void {
    this.failed = true;
    checkpoint(path);
  }
}

/** A PASSIVE checkpoint of the database at `path` on a short-lived connection of its own. */
export function checkpoint(path: string): { busy: number; log: number; checkpointed: number } | null {
  let db: Database | null = null;
  try {
    // never create: a database removed since (an org deleted or moved away) stays removed
    db = new Database(path, { readwrite: true, create: false });
    // prepared and finalized here: a statement left open would keep the closed connection's files open
    const stmt = db.prepare("PRAGMA wal_checkpoint(PASSIVE)");
    try {
      return stmt.get() as { busy: number; log: number; checkpointed: number };
    } finally {
      stmt.finalize();
    }
  } catch {
    return null; // the file is gone (an org removed) or locked: the next commit asks again
  } finally {
    db?.close();
  }
}

/** One per process: every local connection reports to it. */
export const walCheckpoints = new WalCheckpoints();
