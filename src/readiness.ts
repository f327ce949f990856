/**
 * Readiness (`/readyz`): whether this instance can serve the legacy operations now, as a load
 * balancer or an orchestrator asks it. Liveness (`/healthz`) is only "the process answers".
 * Ready means: the start has finished (the embedded data loaded) and the upstream answered its
 * CapabilityStatement recently. The upstream is asked at most once per interval, whatever the rate
 * of probes, so readiness checks never load the FHIR server.
 */

export interface ReadinessReport {
  ready: boolean;
  /** Each check by name: `ok`, or what is wrong in a word (never a URL or an upstream body). */
  checks: Record<string, string>;
}

export interface ReadinessOptions {
  /** Asks the upstream for its CapabilityStatement: true when it answered one. */
  probeUpstream: () => Promise<boolean>;
  /** False while the service is still starting (the embedded data loading). */
  started?: () => boolean;
  now?: () => number;
}

/** How long an answer of the upstream stands: an upstream that answered is asked again after this. */
const READY_FOR_MS = 10_000;
/** How soon an upstream that did not answer is asked again. */
const RETRY_AFTER_MS = 1_000;

export interface Readiness {
  check(): Promise<ReadinessReport>;
}

export function createReadiness(options: ReadinessOptions): Readiness {
  const now = options.now ?? Date.now;
  let upstreamOk = false;
  let askedAt = Number.NEGATIVE_INFINITY;
  let asking: Promise<void> | undefined;
  const askUpstream = (): Promise<void> => {
    asking ??= options
      .probeUpstream()
      .catch(() => false)
      .then((answered) => {
        upstreamOk = answered;
        askedAt = now();
      })
      .finally(() => {
        asking = undefined;
      });
    return asking;
  };
  return {
    async check() {
      const started = options.started?.() ?? true;
      if (started && now() - askedAt >= (upstreamOk ? READY_FOR_MS : RETRY_AFTER_MS)) await askUpstream();
      const checks = { started: started ? 'ok' : 'starting', upstream: !started ? 'not-asked' : upstreamOk ? 'ok' : 'unreachable' };
      return { ready: started && upstreamOk, checks };
    },
  };
}
