import { JOBS } from "@workers/registry";
import { busDrained } from "@tests/support/wait";
import type { TestApp } from "@tests/helpers";

/** The handler module of a job type listed in workers/registry.ts (tests run handlers directly). */
export function handlerOf(definition: { id: string }) {
  const type = JOBS.find((t) => t.definition.id === definition.id);
  if (!type) throw new Error(`job type "${definition.id}" is not in workers/registry.ts`);
  return type.handler();
}

/**
 * Records every job the test app's queue sends (`sent`), and `quietly(work)`
 * drops the `quietJob` jobs that `work` causes: set-up writes build the state
 * the job under test then finds.
 */
export function recordSentJobs(t: TestApp, quietJob: string) {
  const queue = t.rt.queue!;
  const sent: { name: string; id: string }[] = [];
  const send = queue.send.bind(queue);
  let quiet = 0;
  queue.send = async (name, envelope, options) => {
    if (quiet && name === quietJob) return null;
    const id = await send(name, envelope, options);
    if (id) sent.push({ name, id });
    return id;
  };
  const quietly = async <T>(work: () => Promise<T>) => {
    quiet++;
    try {
      return await work();
    } finally {
      await busDrained(t.rt.bus);
      quiet--;
    }
  };
  return { sent, quietly };
}
