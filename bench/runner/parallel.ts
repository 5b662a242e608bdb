// Building a row's data through the API, several calls in flight at once.

/** Runs `work` over `items`, `limit` at a time. */
export async function inParallel<T>(items: readonly T[], limit: number, work: (item: T, i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const i = next++;
        await work(items[i]!, i);
      }
    }),
  );
}
