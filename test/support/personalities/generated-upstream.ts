/**
 * The embedded FHIR server alone with the generated patients, on a free loopback port: the server
 * every personality proxy stands in front of in the proxies' own tests.
 */
import { startEmbeddedFhir, type EmbeddedFhir } from '../../../src/embedded/fhir-server.ts';
import { generateSyntheticBundles } from '../../../src/embedded/seed/generate.ts';

export async function startGeneratedUpstream(): Promise<EmbeddedFhir> {
  const embedded = await startEmbeddedFhir({ port: 0 });
  await embedded.load(generateSyntheticBundles());
  return embedded;
}
