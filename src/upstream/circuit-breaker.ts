/**
 * A circuit breaker per upstream origin. After `failureThreshold` failures in a row (no answer, or
 * a 5xx) the circuit opens: for `coolDownMs` every request fails fast with a 503 and nothing is sent.
 * Then one request is let through as a probe; its answer closes the circuit, its failure opens it
 * again. The state changes when a request arrives (no timer runs): "open" lasts until the first
 * request after the cool-down.
 */
import { FacadeError } from '../errors.ts';

export type CircuitState = 'closed' | 'open' | 'half-open';

export interface CircuitBreakerOptions {
  failureThreshold: number;
  coolDownMs: number;
  onTransition?: (origin: string, to: CircuitState) => void;
  /** Told of each request refused without being sent. */
  onRejected?: (origin: string) => void;
}

/** How one admitted request ended, as the breaker counts it. */
export interface Attempt {
  /** The upstream answered (any status below 500, or a 5xx that says when to come back). */
  answered(): void;
  /** No answer (refused, reset, DNS, TLS, …) or a 5xx. */
  failed(): void;
  /**
   * The deadline passed before the answer. A failure only if the origin answered nothing else
   * meanwhile: one hanging resource type is the bulkhead's matter, not a sign the server is down.
   */
  timedOut(): void;
  /** Ended before reaching the upstream (the bulkhead refused it): says nothing either way. */
  abandoned(): void;
}

interface Circuit {
  state: CircuitState;
  failures: number;
  openUntil: number;
  /** The probe in flight while half-open, and when it is presumed gone (a cancelled Worker request). */
  probeExpiresAt: number | undefined;
  /** Bumped at every transition: an outcome counts only in the period its request was admitted in. */
  generation: number;
  /** Answers seen, to tell a lone timeout from a silent server. */
  answers: number;
}

/** Time a probe outlives its own deadline before another request may probe instead. */
const PROBE_EXPIRY_MARGIN_MS = 5_000;

export class CircuitBreakers {
  readonly #options: CircuitBreakerOptions;
  readonly #circuits = new Map<string, Circuit>();

  constructor(options: CircuitBreakerOptions) {
    this.#options = options;
  }

  /** The state of every origin seen (for /metrics). */
  states(): ReadonlyMap<string, CircuitState> {
    return new Map([...this.#circuits].map(([origin, circuit]) => [origin, circuit.state]));
  }

  /** Lets one request to `origin` through, or throws `upstream-unavailable` while the circuit is open. */
  admit(origin: string, deadline: number): Attempt {
    const circuit = this.#circuitOf(origin);
    const now = Date.now();
    let probe = false;
    if (circuit.state === 'open') {
      if (now < circuit.openUntil) throw this.#refuse(origin, circuit.openUntil - now);
      this.#moveTo(origin, circuit, 'half-open');
    }
    if (circuit.state === 'half-open') {
      if (circuit.probeExpiresAt !== undefined && now < circuit.probeExpiresAt) throw this.#refuse(origin, 1000);
      circuit.probeExpiresAt = deadline + PROBE_EXPIRY_MARGIN_MS;
      probe = true;
    }
    const { generation, answers } = circuit;
    const current = () => circuit.generation === generation;
    let settled = false;
    const settle = (outcome: 'answered' | 'failed' | 'neutral') => {
      if (settled || !current()) return;
      settled = true;
      if (outcome === 'answered') circuit.answers += 1;
      if (probe) {
        circuit.probeExpiresAt = undefined;
        if (outcome === 'answered') this.#moveTo(origin, circuit, 'closed');
        if (outcome === 'failed') this.#open(origin, circuit);
        return;
      }
      if (outcome === 'answered') circuit.failures = 0;
      if (outcome === 'failed' && ++circuit.failures >= this.#options.failureThreshold) this.#open(origin, circuit);
    };
    return {
      answered: () => settle('answered'),
      failed: () => settle('failed'),
      timedOut: () => settle(circuit.answers === answers ? 'failed' : 'neutral'),
      abandoned: () => settle('neutral'),
    };
  }

  #circuitOf(origin: string): Circuit {
    let circuit = this.#circuits.get(origin);
    if (circuit === undefined) {
      circuit = { state: 'closed', failures: 0, openUntil: 0, probeExpiresAt: undefined, generation: 0, answers: 0 };
      this.#circuits.set(origin, circuit);
    }
    return circuit;
  }

  #open(origin: string, circuit: Circuit): void {
    circuit.openUntil = Date.now() + this.#options.coolDownMs;
    this.#moveTo(origin, circuit, 'open');
  }

  #moveTo(origin: string, circuit: Circuit, state: CircuitState): void {
    circuit.state = state;
    circuit.failures = 0;
    circuit.probeExpiresAt = undefined;
    circuit.generation += 1;
    this.#options.onTransition?.(origin, state);
  }

  #refuse(origin: string, waitMs: number): FacadeError {
    this.#options.onRejected?.(origin);
    return new FacadeError('upstream-unavailable', undefined, { reason: 'circuit-open', retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) });
  }
}
