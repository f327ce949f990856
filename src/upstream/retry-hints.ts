/**
 * When a throttling upstream says to come back: the three forms the servers of
 * ../shared/UPSTREAMS.md use, and the backoff used when none is given. Pure functions of the
 * headers and the clock, so they are tested without waiting.
 */

/** Longest wait a hint is taken at (a day): anything longer is read as "not within this request". */
const MAX_HINT_MS = 86_400_000;

/**
 * Milliseconds the upstream asks to wait, from the most precise hint present: Azure's
 * `x-ms-retry-after-ms`, then `Retry-After` (delay-seconds or an HTTP-date, RFC 9110 10.2.3), then
 * the `RateLimit` header (Medplum; draft-ietf-httpapi-ratelimit-headers): the longest reset time
 * `t` among the policies with nothing remaining (`r=0`). `undefined` when there is no usable hint.
 */
export function retryHintMs(header: (name: string) => string | undefined, now: number): number | undefined {
  const azureMs = header('x-ms-retry-after-ms')?.trim();
  if (azureMs !== undefined && /^\d+$/.test(azureMs)) return Math.min(Number(azureMs), MAX_HINT_MS);
  const retryAfter = header('retry-after')?.trim();
  if (retryAfter !== undefined && retryAfter !== '') {
    if (/^\d+$/.test(retryAfter)) return Math.min(Number(retryAfter) * 1000, MAX_HINT_MS);
    // An HTTP-date names a day and month (`Sun, 06 Nov 1994 08:49:37 GMT`); Date.parse alone would take `-3` as a year.
    const date = /[A-Za-z]{3}/.test(retryAfter) ? Date.parse(retryAfter) : Number.NaN;
    if (!Number.isNaN(date)) return Math.min(Math.max(0, date - now), MAX_HINT_MS);
  }
  const rateLimit = header('ratelimit');
  return rateLimit === undefined ? undefined : rateLimitResetMs(rateLimit);
}

/**
 * `"requests";r=0;t=30, "fhirInteractions";r=12;t=30`: a list of policies, each with `r`
 * (remaining) and `t` (seconds until the quota resets). Only exhausted policies say how long to wait.
 */
function rateLimitResetMs(value: string): number | undefined {
  let longest: number | undefined;
  for (const item of value.split(',')) {
    const params = new Map<string, string>();
    for (const part of item.split(';').slice(1)) {
      const [name, raw] = part.split('=');
      if (name !== undefined && raw !== undefined) params.set(name.trim().toLowerCase(), raw.trim());
    }
    const remaining = params.get('r');
    const reset = params.get('t');
    if (remaining !== '0' || reset === undefined || !/^\d+$/.test(reset)) continue;
    longest = Math.max(longest ?? 0, Number(reset) * 1000);
  }
  return longest === undefined ? undefined : Math.min(longest, MAX_HINT_MS);
}

/**
 * The wait before retry number `retry` (1 for the first): the upstream's hint plus up to 20 % (at
 * most 1 s) so that requests throttled together do not all return at the same instant; without a
 * hint, an exponential backoff from 100 ms (at most 2 s), each wait drawn from its upper half.
 */
export function retryWaitMs(hintMs: number | undefined, retry: number, random: () => number = Math.random): number {
  if (hintMs !== undefined) return hintMs + Math.min(hintMs * 0.2, 1000) * random();
  const ceiling = Math.min(100 * 2 ** (retry - 1), 2000);
  return ceiling / 2 + (ceiling / 2) * random();
}
