/**
 * Answers remembered by the text they were computed from, at most `maxEntries` of them: when full
 * the memory starts again, so it stays bounded and what an answer repeats (its patient's reference,
 * its records' times) is computed once per answer at most. The mappers' memos (references, legacy
 * times, `meta.lastUpdated`) are all of this kind (docs/performance.md, "Memory").
 */
export class BoundedMemo {
  readonly #answers = new Map<string, string>();
  readonly #maxEntries: number;

  constructor(maxEntries: number) {
    this.#maxEntries = maxEntries;
  }

  get(value: string): string | undefined {
    return this.#answers.get(value);
  }

  /** Remembers `answer` for `value` and gives it back. */
  set(value: string, answer: string): string {
    if (this.#answers.size >= this.#maxEntries) this.#answers.clear();
    this.#answers.set(value, answer);
    return answer;
  }
}
