/**
 * The service's knowledge of its upstream, kept for the life of the process (one per isolate on
 * Workers): the CapabilityStatement, read on first use and again every CAPABILITIES_REFRESH_MS,
 * and what searches showed since (src/upstream/capabilities.ts).
 */
import { UpstreamCapabilities, type StatedLayers } from '../../upstream/capabilities.ts';
import type { Deadline, FhirClient } from '../../upstream/fhir-client.ts';

/** A server's capabilities change with its deployments, not between requests. */
export const CAPABILITIES_REFRESH_MS = 10 * 60 * 1000;

export class UpstreamKnowledge {
  readonly capabilities: UpstreamCapabilities;
  readonly #client: FhirClient;
  #readAt = Number.NEGATIVE_INFINITY;
  #reading: Promise<void> | undefined;

  /** `stated`: what the site and the named profile say beyond the statement (src/upstream/profiles.ts). */
  constructor(client: FhirClient, stated: StatedLayers = {}) {
    this.#client = client;
    this.capabilities = new UpstreamCapabilities(new Map(), stated);
  }

  /**
   * The capabilities. The first request waits for the statement (briefly: a server without one
   * must not slow it down); later ones never wait, a due refresh runs beside them.
   */
  async current(deadline?: Deadline): Promise<UpstreamCapabilities> {
    const neverRead = this.#readAt === Number.NEGATIVE_INFINITY;
    if (Date.now() - this.#readAt >= CAPABILITIES_REFRESH_MS) {
      // Never longer than the request that waits for it has left.
      const wait = Math.max(1, Math.min(METADATA_TIMEOUT_MS, (deadline?.at ?? Number.POSITIVE_INFINITY) - Date.now()));
      this.#reading ??= this.#client
        .capabilityStatement(this.#client.deadline(wait, deadline?.trace))
        .then((statement) => {
          if (statement !== undefined) this.capabilities.declare(statement);
          // No statement (the server has none, or was down): includes are observed meanwhile, and it is asked again soon.
          this.#readAt = statement === undefined ? Date.now() - CAPABILITIES_REFRESH_MS + RETRY_AFTER_NO_STATEMENT_MS : Date.now();
        })
        .catch(() => {
          this.#readAt = Date.now() - CAPABILITIES_REFRESH_MS + RETRY_AFTER_NO_STATEMENT_MS;
        })
        .finally(() => {
          this.#reading = undefined;
        });
      if (neverRead) await this.#reading;
    }
    return this.capabilities;
  }
}

/** How soon a statement that could not be read is asked for again. */
const RETRY_AFTER_NO_STATEMENT_MS = 60 * 1000;

/** How long the first request waits for `/metadata`; without it, every include is observed instead. */
const METADATA_TIMEOUT_MS = 3000;
