// The checkpoint worker thread (wal-checkpoints.ts): checkpoints each database
// path it is sent, one at a time, never the same path twice in a row while a
// request for it is still queued.
import { checkpoint } from "./wal-checkpoints";

declare const self: Worker;

const queued = new Set<string>();
let running = false;

self.onmessage = (event: MessageEvent<string>) => {
  queued.add(event.data);
  if (!running) drain();
};

function drain(): void {
  running = true;
  while (queued.size) {
    const path = queued.values().next().value as string;
    queued.delete(path);
    checkpoint(path);
  }
  running = false;
}
