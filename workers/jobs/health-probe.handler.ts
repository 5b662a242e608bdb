import type { JobContext } from "@/platform/queue/handlers";

export default async function healthProbe({ rt, payload, actor, causedBy, job }: JobContext<{ note?: string }>) {
  await rt.control.ping();
  return { ok: true, note: payload.note ?? null, actor: actor.id, caused_by: causedBy.id, attempt: job.retryCount + 1, pid: process.pid };
}
