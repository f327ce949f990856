/**
 * Runs on Node before the Workers tests: the embedded FHIR upstream with the generated patients, and
 * the Node facade on it, so the Worker is tested against the same upstream and compared with Node.
 */
import type { TestProject } from 'vitest/node';
import { parseConfig } from '../../src/config.ts';
import { startEmbeddedFhir } from '../../src/embedded/fhir-server.ts';
import { generateSyntheticBundles } from '../../src/embedded/seed/generate.ts';
import { startService } from '../../src/entry/node/node-service.ts';
import { serviceModeEnv, startAuthorizationServer } from '../support/authorization-server.ts';
import { startFaultUpstream } from './fault-upstream.ts';
import { startOtlpReceiver } from '../support/otlp-receiver.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    upstreamUrl: string;
    nodeFacadeUrl: string;
    /** A service-mode Worker's configuration (an authorization server on Node) and a token for patient 1. */
    serviceModeEnv: Record<string, string>;
    patientOneToken: string;
    /** An upstream answering compressed, oversized and throttled (test/worker/fault-upstream.ts). */
    faultUpstreamUrl: string;
    /** An OTLP receiver (test/support/otlp-receiver.ts): POST /v1/traces records, GET answers the spans. */
    otlpReceiverUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const upstream = await startEmbeddedFhir({ port: 0 });
  await upstream.load(generateSyntheticBundles());
  const node = await startService(parseConfig({ UPSTREAM_URL: upstream.baseUrl, PORT: '0', HOST: '127.0.0.1' }));
  project.provide('upstreamUrl', upstream.baseUrl);
  project.provide('nodeFacadeUrl', node.url);
  const app = { clientId: 'worker-app', secret: 'worker-app-secret-0123', patient: '1', scope: 'patient/*.read' };
  const as = await startAuthorizationServer([app]);
  project.provide('serviceModeEnv', serviceModeEnv(as, upstream.baseUrl, 'jwt'));
  project.provide('patientOneToken', await as.tokenFor(app));
  const faults = await startFaultUpstream();
  project.provide('faultUpstreamUrl', `${faults.origin}/fhir`);
  const receiver = await startOtlpReceiver();
  project.provide('otlpReceiverUrl', receiver.origin);
  return async () => {
    await receiver.close();
    await faults.close();
    await as.close();
    await node.close();
    await upstream.close();
  };
}
