/**
 * Runs on Node for the Workers suite: a FHIR upstream whose answers are compressed, oversized when
 * decoded, or throttled, chosen by the patient id of the search, so the Worker's platform `fetch`
 * is tested on what real servers send. `/seen` reports the Accept-Encoding of the last request.
 */
import { gzipSync, brotliCompressSync, deflateSync } from 'node:zlib';
import type { ServerResponse } from 'node:http';
import { drainedOrClosed, page, startCannedUpstream, type CannedUpstream } from '../support/canned-upstream.ts';

const REPORTS = Array.from({ length: 40 }, (_, index) => ({
  resourceType: 'DiagnosticReport',
  id: `r${index}`,
  status: 'final',
  code: { coding: [{ system: 'http://loinc.org', code: `${index}-0`, display: `Panel ${index}` }] },
  subject: { reference: 'Patient/1' },
}));
const PLAIN = Buffer.from(JSON.stringify(page(REPORTS)));
/** 1 MiB of zeros as one gzip member (~1 KB); 1024 of them are 1 GiB decoded. */
const ZEROS_MEMBER = gzipSync(Buffer.alloc(1024 * 1024), { level: 9 });

function send(res: ServerResponse, status: number, body: Buffer, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/fhir+json', ...headers });
  res.end(body);
}

export async function startFaultUpstream(): Promise<CannedUpstream> {
  const throttledOnce = new Set<string>();
  let lastAcceptEncoding = '';
  const upstream = await startCannedUpstream(async (request, res) => {
    const url = new URL(request.url, 'http://upstream');
    if (url.pathname === '/seen') return send(res, 200, Buffer.from(JSON.stringify({ acceptEncoding: lastAcceptEncoding })));
    lastAcceptEncoding = String(request.headers['accept-encoding'] ?? '');
    const patient = (url.searchParams.get('patient') ?? '').replace(/^Patient\//, '');
    if (patient === 'gzip') return send(res, 200, gzipSync(PLAIN), { 'content-encoding': 'gzip' });
    if (patient === 'br') return send(res, 200, brotliCompressSync(PLAIN), { 'content-encoding': 'br' });
    if (patient === 'deflate') return send(res, 200, deflateSync(PLAIN), { 'content-encoding': 'deflate' });
    if (patient === 'bomb') {
      res.writeHead(200, { 'content-type': 'application/fhir+json', 'content-encoding': 'gzip' });
      for (let index = 0; index < 1024 && !res.destroyed; index += 1) {
        if (!res.write(ZEROS_MEMBER)) await drainedOrClosed(res);
      }
      return void res.end();
    }
    if (patient === 'throttle-forever') return send(res, 429, Buffer.from('{}'), { 'retry-after': '120' });
    if (patient.startsWith('throttle') && !throttledOnce.has(patient)) {
      throttledOnce.add(patient);
      return send(res, 429, Buffer.from('{}'), { 'x-ms-retry-after-ms': '100' });
    }
    send(res, 200, PLAIN);
  });
  return upstream;
}
