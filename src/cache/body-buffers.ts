/**
 * Buffers for the bodies a cache hit sends, used again once their response has gone to the socket.
 *
 * Each hit sends a copy of the stored bytes with a fresh Bundle id. Allocating that copy was the
 * dearest step of a hit on Node (measured: a new 24 KB ArrayBuffer per response cost ~10 µs of GC
 * and fresh memory, a copy into a buffer used before ~2 µs; docs/performance.md). So on Node, where
 * the response says when it is written (`finish` on @hono/node-server's `env.outgoing`), the copy
 * goes into a pooled buffer that comes back to the pool then. Elsewhere (Workers) or when a
 * response is cut (no `finish`), a buffer is simply left to the GC.
 */

/** What tells that a response has been handed to the socket: Node's ServerResponse (`finish`). */
export interface WrittenSignal {
  once(event: 'finish', listener: () => void): unknown;
}

/** Sizes pooled: powers of two from 4 KiB to 1 MiB (smaller ones are cheap, larger ones rare). */
const SMALLEST_CLASS = 12;
const LARGEST_CLASS = 20;

export class BodyBuffers {
  /** Idle buffers by size class (log2 of their size). */
  readonly #idle = new Map<number, Uint8Array<ArrayBuffer>[]>();
  #idleBytes = 0;

  /** `maxIdleBytes`: the most the pool keeps while no response uses it. */
  constructor(readonly maxIdleBytes = 8 * 1024 * 1024) {}

  /**
   * A buffer of `size` bytes for one response: a view of a pooled buffer that comes back when
   * `written` says the response has been written, or a new buffer where nothing will say so.
   */
  take(size: number, written: WrittenSignal | undefined): Uint8Array<ArrayBuffer> {
    const sizeClass = Math.max(SMALLEST_CLASS, Math.ceil(Math.log2(Math.max(1, size))));
    if (written === undefined || sizeClass > LARGEST_CLASS) return new Uint8Array(size);
    let buffer = this.#idle.get(sizeClass)?.pop();
    if (buffer === undefined) buffer = new Uint8Array(2 ** sizeClass);
    else this.#idleBytes -= buffer.byteLength;
    const taken = buffer;
    written.once('finish', () => this.#give(sizeClass, taken));
    return buffer.subarray(0, size);
  }

  /** Idle bytes held now (tests). */
  get idleBytes(): number {
    return this.#idleBytes;
  }

  #give(sizeClass: number, buffer: Uint8Array<ArrayBuffer>): void {
    if (this.#idleBytes + buffer.byteLength > this.maxIdleBytes) return;
    let list = this.#idle.get(sizeClass);
    if (list === undefined) {
      list = [];
      this.#idle.set(sizeClass, list);
    }
    list.push(buffer);
    this.#idleBytes += buffer.byteLength;
  }
}
