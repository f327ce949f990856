/**
 * Seeded randomness for the synthetic data generator.
 *
 * Everything the generator produces must be a pure function of its options, so nothing here
 * touches Math.random, crypto or the clock: a 32-bit mulberry32 stream drives every choice,
 * and uuids are built from that stream plus a counter so they are unique by construction.
 */

/** Mixes two 32-bit integers into one well-spread 32-bit seed (a murmur3-style finaliser). */
export function mixSeeds(a: number, b: number): number {
  let h = (Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x7f4a7c15, 0xc2b2ae35)) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Small, fast, deterministic pseudo-random stream (mulberry32). */
export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Next unsigned 32-bit integer. */
  nextUint32(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** Float in [0, 1). */
  next(): number {
    return this.nextUint32() / 4294967296;
  }

  /** Integer in [min, max] inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** Float in [min, max), rounded to `decimals` places so JSON output stays short. */
  decimal(min: number, max: number, decimals = 1): number {
    const factor = 10 ** decimals;
    return Math.round((min + this.next() * (max - min)) * factor) / factor;
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick() from an empty list');
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** `count` distinct items in a stable (shuffled) order. */
  sample<T>(items: readonly T[], count: number): T[] {
    const pool = [...items];
    for (let i = pool.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [pool[i], pool[j]] = [pool[j] as T, pool[i] as T];
    }
    return pool.slice(0, Math.min(count, pool.length));
  }

  /** String of decimal digits, e.g. for phone numbers and member ids. */
  digits(length: number): string {
    let out = '';
    for (let i = 0; i < length; i++) out += String(this.int(0, 9));
    return out;
  }
}

const hex = (value: number, width: number): string => (value >>> 0).toString(16).padStart(width, '0').slice(-width);

/**
 * Version-4-shaped uuids drawn from a SeededRandom.
 *
 * A pure 32-bit stream could in principle repeat a 128-bit value across streams, so part of each
 * uuid is the bundle's tag (16 bits) and a running counter (32 bits): uuids never collide inside a
 * bundle, nor across the first 65,536 bundles of one generation.
 */
export class UuidSource {
  private counter = 0;

  constructor(
    private readonly rng: SeededRandom,
    private readonly bundleTag: number,
  ) {}

  next(): string {
    this.counter += 1;
    const a = this.rng.nextUint32();
    const b = this.rng.nextUint32();
    const variant = (8 + (b & 0x3)).toString(16); // RFC 4122 variant: 8, 9, a or b
    return [hex(a, 8), hex(this.bundleTag, 4), `4${hex(b >>> 20, 3)}`, `${variant}${hex(b >>> 8, 3)}`, `${hex(b >>> 2, 4)}${hex(this.counter, 8)}`].join('-');
  }
}
