import type { Runtime } from "../src/platform/runtime";

/** Placeholder until the queue lands: no job types are registered yet. */
export async function startWorkers(_rt: Runtime): Promise<() => Promise<void>> {
  return async () => {};
}
