/**
 * Answers a database keeps between requests (`SqlDatabase.readKept`) are
 * shared by every request that reads them, so they are frozen all the way
 * down: a caller that tried to change one would throw instead of changing
 * another request's answer. Because a kept answer can no longer change, its
 * JSON text is worked out once and reused (`keptJson`).
 */
const jsonOfKept = new WeakMap<object, string | null>();

function freezeDeep(value: unknown): void {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) return;
  for (const v of Object.values(value)) freezeDeep(v);
  Object.freeze(value);
}

export function keep<T>(value: T): T {
  if (value !== null && typeof value === "object") {
    freezeDeep(value);
    jsonOfKept.set(value, null);
  }
  return value;
}

/** The JSON text of a kept answer (computed on first use); undefined for any other value. */
export function keptJson(value: unknown): string | undefined {
  if (value === null || typeof value !== "object") return undefined;
  const json = jsonOfKept.get(value);
  if (json === undefined) return undefined;
  if (json !== null) return json;
  const text = JSON.stringify(value);
  jsonOfKept.set(value, text);
  return text;
}
