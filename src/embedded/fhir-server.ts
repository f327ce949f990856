// The embedded FHIR R4 upstream: an in-process, read-only FHIR server on its own HTTP port. The
// facade talks to it over the network exactly as it would to a remote server.
import type { Bundle } from '@medplum/fhirtypes';
import { createAdaptorServer } from '@hono/node-server';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ensureFhirDefinitions, getSearchParam } from './definitions.ts';
import { createFhirApp } from './http-api.ts';
import type { LoadSummary } from './load-data.ts';
import { loadBundles } from './load-data.ts';
import { IndexedMemoryRepository } from './resource-store.ts';
import type { SearchContext } from './search-executor.ts';
import { findMatches } from './search-executor.ts';
import type { PagingLimits } from './search-request.ts';
import { parseSearch } from './search-request.ts';

export type { LoadSummary } from './load-data.ts';

export interface EmbeddedFhirOptions {
  /** 0 picks a free port; {@link EmbeddedFhir.port} reports the real one. */
  port: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Page size when a search has no _count. Default 50. */
  defaultPageSize?: number;
  /** Larger _count values are clamped to this. Default 1000. */
  maxPageSize?: number;
}

export interface EmbeddedFhir {
  /** e.g. http://127.0.0.1:8081/fhir */
  baseUrl: string;
  port: number;
  /** Loads Bundles as a FHIR server processes transactions; resources written per type. */
  load(bundles: Bundle[]): Promise<LoadSummary>;
  close(): Promise<void>;
}

export async function startEmbeddedFhir(options: EmbeddedFhirOptions): Promise<EmbeddedFhir> {
  ensureFhirDefinitions();
  const host = options.host ?? '127.0.0.1';
  const maxPageSize = options.maxPageSize ?? 1000;
  const limits: PagingLimits = { defaultPageSize: Math.min(options.defaultPageSize ?? 50, maxPageSize), maxPageSize };
  const store = new IndexedMemoryRepository();
  // The base URL depends on the port actually bound, so the app reads it through this object
  const ctx = { store, baseUrl: '', limits };
  const server = createAdaptorServer({ fetch: createFhirApp(ctx).fetch }) as Server;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  ctx.baseUrl = `http://${urlHost(host)}:${port}/fhir`;

  const searchCtx: SearchContext = ctx;
  return {
    baseUrl: ctx.baseUrl,
    port,
    async load(bundles) {
      const summary = await loadBundles(store, bundles, {
        // Conditional creates (ifNoneExist) are answered by the server's own search
        findExisting: (type, query) => findMatches(searchCtx, parseSearch(type, [...new URLSearchParams(query).entries()], limits)).map((r) => r.id),
      });
      // Patient-scoped searches are the common case; index them now rather than on first request
      for (const type of Object.keys(summary)) {
        for (const code of ['patient', 'subject']) {
          if (getSearchParam(type, code)?.type === 'reference') {
            store.prepareReferenceIndex(type, code);
          }
        }
      }
      return summary;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        // Keep-alive connections (undici pools) would otherwise hold close() open
        server.closeAllConnections();
      }),
  };
}

/** The host as it appears in this server's URLs: loopback for wildcard binds, IPv6 bracketed. */
function urlHost(host: string): string {
  if (host === '0.0.0.0') {
    return '127.0.0.1';
  }
  if (host === '::') {
    return '[::1]';
  }
  return host.includes(':') ? `[${host}]` : host;
}
