/**
 * The response cache as the configuration asks for it, the same on Node and on Workers.
 */
import type { Config } from '../config.ts';
import { FacadeError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { Metrics } from '../metrics.ts';
import { ResponseCache } from './response-cache.ts';

/** The response cache the configuration asks for, its evictions counted; none when disabled. */
export function responseCacheFor(config: Config, metrics: Metrics, logger: Logger): ResponseCache | undefined {
  if (config.CACHE_ENABLED === 'false' || config.CACHE_MAX_BYTES === 0) return undefined;
  return new ResponseCache({
    maxBytes: config.CACHE_MAX_BYTES,
    ttlMs: config.CACHE_TTL_MS,
    staleMs: config.CACHE_STALE_MS,
    onEvict: () => metrics.cacheEvents.inc({ outcome: 'eviction' }),
    onRefreshError: (error) => logger('warn', 'cache refresh failed', { code: error instanceof FacadeError ? error.code : 'internal' }),
  });
}
