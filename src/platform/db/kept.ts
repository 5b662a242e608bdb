/**
 * Answers a database keeps between requests (`SqlDatabase.readKept`) are
 * shared by every request that reads them, so they are frozen all the way
 * down: a caller that tried to change one would throw instead of changing
 * another request's answer. Because a kept answer can no longer change, its
 * JSON text is worked out once, when it is kept, and reused (`keptJson`).
 */
const jsonOfKept = new WeakMap<object, string>();

function freezeDeep(value: object): void {
  for (const key in value) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== null && typeof v === "object" && !Object.isFrozen(v)) freezeDeep(v);
  }
  Object.freeze(value);
}

export function keep<T>(value: T): T {
  if (value !== null && typeof value === "object" && !jsonOfKept.has(value)) {
    // the text first: JSON.stringify is slower on frozen objects
    jsonOfKept.set(value, JSON.stringify(value));
    freezeDeep(value);
  }
  return value;
}

/** The JSON text of a kept answer; undefined for any other value. */
export function keptJson(value: unknown): string | undefined {
  return value !== null && typeof value === "object" ? jsonOfKept.get(value) : undefined;
}
