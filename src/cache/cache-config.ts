/**
 * The response cache as the configuration asks for it, the same on Node and on Workers.
 */
import type { Config } from '../config.ts';
import { FacadeError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { Metrics } from '../metrics.ts';
import { ResponseCache } from './response-cache.ts';
import type { SealedTier } from './sealed-tier.ts';

/** Refusals that must end a stale entry at once: the token is no longer good, or the record is gone. */
const FORGETTING_STATUSES = new Set([401, 403, 404]);

/**
 * The response cache the configuration asks for, its evictions counted; none when disabled (also by
 * a zero size or a zero TTL), and then no shared tier either. `shareLoads` is off on Workers (see
 * ResponseCacheOptions); `shared` is the tier behind it, if any.
 */
export function responseCacheFor(config: Config, metrics: Metrics, logger: Logger, shareLoads = true, shared?: SealedTier): ResponseCache | undefined {
  if (config.CACHE_ENABLED === 'false' || config.CACHE_MAX_BYTES === 0 || config.CACHE_TTL_MS === 0) return undefined;
  return new ResponseCache({
    maxBytes: config.CACHE_MAX_BYTES,
    ttlMs: config.CACHE_TTL_MS,
    staleMs: config.CACHE_STALE_MS,
    shareLoads,
    shared,
    onEvict: () => metrics.cacheEvents.inc({ outcome: 'eviction' }),
    onRefreshError: (error) => logger('warn', 'cache refresh failed', { code: error instanceof FacadeError ? error.code : 'internal' }),
    forgetOnRefreshError: (error) => error instanceof FacadeError && FORGETTING_STATUSES.has(error.status),
  });
}
