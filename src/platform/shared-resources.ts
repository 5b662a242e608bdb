// Heavy services a process makes only when it first needs them (the OCR
// workers, the virus scanner) and closes when the runtime closes: one per
// runtime, shared by every job and request of the process.

type Entry = { value: unknown; close?: () => Promise<void> | void };

export class SharedResources {
  private readonly entries = new Map<string, Entry>();
  private closed = false;

  /** The resource made under `name`, made now by `create` on first use. */
  get<T>(name: string, create: () => T, close?: (value: T) => Promise<void> | void): T {
    if (this.closed) throw new Error(`the runtime is closed: ${name} is no longer available`);
    const held = this.entries.get(name);
    if (held) return held.value as T;
    const value = create();
    this.entries.set(name, { value, close: close ? () => close(value) : undefined });
    return value;
  }

  /** Closes every resource made, newest first; a failing close does not stop the others. */
  async closeAll(): Promise<void> {
    this.closed = true;
    const entries = [...this.entries.values()].reverse();
    this.entries.clear();
    for (const e of entries) await Promise.resolve(e.close?.()).catch(() => {});
  }
}
