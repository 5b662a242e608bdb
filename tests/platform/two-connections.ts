import { LocalSqlDatabase } from "@/platform/db/database";
import { MIGRATIONS } from "@/platform/db/open";
import { tenantSchema } from "@db/tenant/drizzle-schema";

/** Two connections to one org file, as two processes would hold: `reader` migrates it. */
export function twoConnections(file: string): { reader: LocalSqlDatabase<typeof tenantSchema>; writer: LocalSqlDatabase<typeof tenantSchema> } {
  const reader = new LocalSqlDatabase(file, tenantSchema);
  reader.migrate(MIGRATIONS.tenant);
  return { reader, writer: new LocalSqlDatabase(file, tenantSchema) };
}

/**
 * Causality under load, for the local read paths: a server answers each
 * request with `answer()` while 8 clients keep it busy; 300 times a write
 * commits (`write(i)`) and a request sent after it must read `String(i)`.
 * Answers the rounds that read something older (empty when none did).
 */
export async function staleReadsUnderLoad(answer: () => string, write: (i: number) => void, rounds = 300): Promise<string[]> {
  const server = Bun.serve({ port: 0, fetch: () => new Response(answer()) });
  const url = `http://127.0.0.1:${server.port}/`;
  let stop = false;
  const load = Array.from({ length: 8 }, async () => {
    while (!stop) await (await fetch(url)).text();
  });
  const stale: string[] = [];
  try {
    for (let i = 1; i <= rounds; i++) {
      write(i);
      const seen = await (await fetch(url)).text();
      if (seen !== String(i)) stale.push(`wrote ${i}, read ${seen}`);
    }
  } finally {
    stop = true;
    await Promise.all(load);
    server.stop(true);
  }
  return stale;
}
