/**
 * The service's knowledge of its upstream, kept for the life of the process (one per isolate on
 * Workers): the CapabilityStatement, read on first use and again every CAPABILITIES_REFRESH_MS,
 * and what searches showed since (src/upstream/capabilities.ts).
 */
import { UpstreamCapabilities } from '../../upstream/capabilities.ts';
import type { FhirClient } from '../../upstream/fhir-client.ts';

/** A server's capabilities change with its deployments, not between requests. */
export const CAPABILITIES_REFRESH_MS = 10 * 60 * 1000;

export class UpstreamKnowledge {
  readonly capabilities = new UpstreamCapabilities();
  readonly #client: FhirClient;
  #readAt = Number.NEGATIVE_INFINITY;
  #reading: Promise<void> | undefined;

  constructor(client: FhirClient) {
    this.#client = client;
  }

  /**
   * The capabilities. The first request waits for the statement (briefly: a server without one
   * must not slow it down); later ones never wait, a due refresh runs beside them.
   */
  async current(): Promise<UpstreamCapabilities> {
    const neverRead = this.#readAt === Number.NEGATIVE_INFINITY;
    if (Date.now() - this.#readAt >= CAPABILITIES_REFRESH_MS) {
      this.#reading ??= this.#client
        .capabilityStatement(AbortSignal.timeout(METADATA_TIMEOUT_MS))
        .then((statement) => {
          if (statement !== undefined) this.capabilities.declare(statement);
        })
        .catch(() => undefined) // no statement: includes are observed instead
        .finally(() => {
          this.#readAt = Date.now();
          this.#reading = undefined;
        });
      if (neverRead) await this.#reading;
    }
    return this.capabilities;
  }
}

/** How long the first request waits for `/metadata`; without it, every include is observed instead. */
const METADATA_TIMEOUT_MS = 3000;
