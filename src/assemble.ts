/**
 * Puts the facade together from its configuration and the parts each runtime supplies (transport,
 * hashing, logger): the one place both entries build the client, cache, metrics and app.
 */
import { createApp, type AppOptions } from './app.ts';
import type { AuditSink } from './audit.ts';
import { accessControlFor } from './access/access-from-config.ts';
import { responseCacheFor } from './cache/cache-config.ts';
import { webHashing, type Hashing } from './ports/hashing.ts';
import type { ResponseCache } from './cache/response-cache.ts';
import type { EntrySealing } from './cache/entry-cipher.ts';
import { SealedTier } from './cache/sealed-tier.ts';
import type { SharedTier } from './cache/shared-tier.ts';
import type { Config } from './config.ts';
import type { Logger } from './log.ts';
import { Metrics } from './metrics.ts';
import { Bulkhead } from './upstream/bulkhead.ts';
import { CircuitBreakers } from './upstream/circuit-breaker.ts';
import { FhirClient } from './upstream/fhir-client.ts';
import { resilientTransport } from './upstream/resilient-transport.ts';
import type { Transport } from './upstream/transport.ts';
import { upstreamSetupFor } from './upstream/profiles.ts';
import { siteCodesOf } from './site-codes.ts';
import { createLegacyTime } from '../mappers/legacy-time.ts';
import { createReadiness } from './readiness.ts';

/** How long `/readyz` waits for the upstream's CapabilityStatement before calling it unreachable. */
const READINESS_PROBE_MS = 2000;
import { tracingFor, type Tracing } from './tracing/tracing-config.ts';
import { tracedTransport } from './upstream/traced-transport.ts';

export interface RuntimeParts {
  upstreamUrl: string;
  transport: Transport;
  logger: Logger;
  /** Native hashing where the runtime has it; Web Crypto otherwise. */
  hashing?: Hashing;
  /** The cache tier shared beyond this process (Redis on Node, the Cache API on Workers); needs CACHE_SECRET. */
  sharedTier?: SharedTier;
  /** Native naming and sealing of the shared tier's entries where the runtime has it; Web Crypto otherwise. */
  entrySealing?: (secret: string) => EntrySealing;
  /** Whether identical concurrent misses may share one upstream load (not on Workers). */
  shareCacheLoads: boolean;
  /** Where audit lines go (src/audit.ts). */
  audit: AuditSink;
  /** `fetch` for the token and introspection endpoints (the platform's by default). */
  authFetch?: typeof fetch;
  /** Told each fallback a plan uses (src/app.ts). */
  onFallback?: AppOptions['onFallback'];
  /** False while the runtime is still starting (Node: the embedded data loading); `/readyz` and the legacy operations wait for it. */
  started?: () => boolean;
  /**
   * Whether timers outlive the request that set them (Node, the default): then spans are sent in
   * batches on a timer; on Workers, where they do not, the entry calls `tracing.flush()` after each request.
   */
  timersOutliveRequests?: boolean;
}

export interface Facade {
  app: ReturnType<typeof createApp>;
  cache: ResponseCache | undefined;
  metrics: Metrics;
  /** Sends queued spans: `flush()` after a request on Workers, `shutdown()` when the Node service closes. */
  tracing: Tracing;
}

export function assembleFacade(config: Config, parts: RuntimeParts): Facade {
  const metrics = new Metrics();
  // The profile and the site's overrides: the `_count` asked, and the limits the plans read with the statement.
  const upstream = upstreamSetupFor(config);
  const tracing = tracingFor(config, { metrics, logger: parts.logger, timersOutliveRequests: parts.timersOutliveRequests ?? true });
  const client = new FhirClient({
    baseUrl: parts.upstreamUrl,
    // Tracing innermost: each sending, retries included, is its own span with its own traceparent.
    transport: resilientTransport(tracedTransport(parts.transport), resilienceFor(config, metrics)),
    timeoutMs: config.UPSTREAM_TIMEOUT_MS,
    maxPages: config.UPSTREAM_MAX_PAGES,
    pageSize: upstream.pageSize,
    maxBodyBytes: config.UPSTREAM_MAX_BODY_BYTES,
    onUpstreamRequest: (seconds) => metrics.upstreamSeconds.observe(seconds),
  });
  const cache = responseCacheFor(config, metrics, parts.logger, parts.shareCacheLoads, sealedTierFor(config, parts, metrics));
  const hashing = parts.hashing ?? webHashing(config.CACHE_SECRET);
  const access = accessControlFor(config, { hashing, fetch: parts.authFetch });
  const app = createApp({
    client,
    cache,
    hashing,
    metrics,
    logger: parts.logger,
    access,
    audit: parts.audit,
    maxUrlLength: config.MAX_URL_LENGTH,
    siteCodes: siteCodesOf(config),
    upstreamStated: upstream.stated,
    onFallback: parts.onFallback,
    legacyTime: createLegacyTime(config.LEGACY_TIME_ZONE),
    tracer: tracing.tracer,
    started: parts.started,
    // Ready when started and the upstream answers its CapabilityStatement (src/readiness.ts).
    readiness: createReadiness({
      started: parts.started,
      probeUpstream: async () => (await client.capabilityStatement(client.deadline(READINESS_PROBE_MS))) !== undefined,
    }),
  });
  return { app, cache, metrics, tracing };
}

/** The runtime's shared tier, sealed under CACHE_SECRET and counted per tier (docs/decisions.md, "Shared cache tier"). */
function sealedTierFor(config: Config, parts: RuntimeParts, metrics: Metrics): SealedTier | undefined {
  const tier = parts.sharedTier;
  if (tier === undefined) return undefined;
  if (config.CACHE_SECRET === undefined) throw new Error('a shared cache tier needs CACHE_SECRET (src/config.ts requires it with CACHE_REDIS_URL)');
  return new SealedTier({
    tier,
    secret: config.CACHE_SECRET,
    sealing: parts.entrySealing,
    timeoutMs: config.CACHE_L2_TIMEOUT_MS,
    logger: parts.logger,
    onEvent: (event) => metrics.cacheTierEvents.inc({ tier: tier.name, event }),
  });
}

/** The breaker, bulkhead and retry settings of the configuration, reporting to the metrics. */
function resilienceFor(config: Config, metrics: Metrics): Parameters<typeof resilientTransport>[1] {
  const breakers = new CircuitBreakers({
    failureThreshold: config.UPSTREAM_BREAKER_FAILURES,
    coolDownMs: config.UPSTREAM_BREAKER_COOLDOWN_MS,
    onTransition: (origin, to) => metrics.upstreamCircuitTransitions.inc({ origin, to }),
    onRejected: (origin) => metrics.upstreamCircuitRejections.inc({ origin }),
  });
  metrics.upstreamCircuitStates = () => breakers.states();
  const bulkhead = new Bulkhead({
    maxInFlight: config.UPSTREAM_MAX_IN_FLIGHT,
    maxInFlightPerPartition: config.UPSTREAM_MAX_IN_FLIGHT_PER_TYPE,
    maxQueueWaitMs: config.UPSTREAM_QUEUE_WAIT_MS,
    onQueued: (partition) => metrics.upstreamQueued.inc({ partition }),
    onRejected: (partition) => metrics.upstreamBulkheadRejections.inc({ partition }),
  });
  return {
    breakers,
    bulkhead,
    maxAttempts: config.UPSTREAM_MAX_ATTEMPTS,
    // A retry with less than a tenth of the deadline (at most 1 s) left would most likely end in a 504 anyway.
    minRetryBudgetMs: Math.min(1000, config.UPSTREAM_TIMEOUT_MS / 10),
    onRetry: (status, waitMs) => {
      metrics.upstreamRetries.inc({ status: String(status) });
      metrics.upstreamRetryWaitSeconds.inc({}, waitMs / 1000);
    },
    onGiveUp: (why) => metrics.upstreamRetryGiveUps.inc({ why }),
  };
}
