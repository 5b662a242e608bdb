// A small seeded generator (sfc32 seeded through splitmix32): every choice the
// fuzzer makes comes from one of these, so a seed names one run.

function splitmix32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(readonly seed: number) {
    const mix = splitmix32(seed);
    this.a = mix();
    this.b = mix();
    this.c = mix();
    this.d = mix();
    for (let i = 0; i < 12; i++) this.next32();
  }

  /** A uniformly random unsigned 32-bit integer. */
  next32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) >>> 0;
    return t;
  }

  /** [0, 1) */
  float(): number {
    return this.next32() / 4294967296;
  }

  /** An integer in [min, max] (both included; works beyond 2^32 with less uniformity). */
  int(min: number, max: number): number {
    if (max <= min) return min;
    const span = max - min + 1;
    if (span <= 4294967296) return min + Math.floor(this.float() * span);
    return Math.min(max, min + Math.floor((this.float() + this.next32() / 4294967296 / 4294967296) * span));
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("pick from an empty list");
    return items[Math.floor(this.float() * items.length)]!;
  }

  /** One of `options`, each with its weight. */
  weighted<T>(options: readonly (readonly [T, number])[]): T {
    const total = options.reduce((n, [, w]) => n + w, 0);
    let x = this.float() * total;
    for (const [value, w] of options) {
      x -= w;
      if (x < 0) return value;
    }
    return options[options.length - 1]![0];
  }

  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.float() * (i + 1));
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }

  /** An independent generator derived from this one (so adding choices in one place does not shift another). */
  fork(): Rng {
    return new Rng(this.next32());
  }

  /** A random (version 4) UUID from this generator. */
  uuid(): string {
    const hex = Array.from({ length: 4 }, () => this.next32().toString(16).padStart(8, "0")).join("");
    const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  }
}
