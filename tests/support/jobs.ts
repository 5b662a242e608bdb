import { JOBS } from "@workers/registry";

/** The handler module of a job type listed in workers/registry.ts (tests run handlers directly). */
export function handlerOf(definition: { id: string }) {
  const type = JOBS.find((t) => t.definition.id === definition.id);
  if (!type) throw new Error(`job type "${definition.id}" is not in workers/registry.ts`);
  return type.handler();
}
