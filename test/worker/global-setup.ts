/**
 * Runs on Node before the Workers tests: the embedded FHIR upstream with the generated patients, and
 * the Node facade on it, so the Worker is tested against the same upstream and compared with Node.
 */
import type { TestProject } from 'vitest/node';
import { parseConfig } from '../../src/config.ts';
import { startEmbeddedFhir } from '../../src/embedded/fhir-server.ts';
import { generateSyntheticBundles } from '../../src/embedded/seed/generate.ts';
import { startService } from '../../src/node-service.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    upstreamUrl: string;
    nodeFacadeUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const upstream = await startEmbeddedFhir({ port: 0 });
  await upstream.load(generateSyntheticBundles());
  const node = await startService(parseConfig({ UPSTREAM_URL: upstream.baseUrl, PORT: '0', HOST: '127.0.0.1' }));
  project.provide('upstreamUrl', upstream.baseUrl);
  project.provide('nodeFacadeUrl', node.url);
  return async () => {
    await node.close();
    await upstream.close();
  };
}
