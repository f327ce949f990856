/**
 * Reading a response body with a bound on its size, shared by the upstream transports and the calls
 * to the authorization server: a body past the bound fails as soon as it passes it, never read whole.
 */
import { FacadeError } from '../errors.ts';

/** Reads a body stream as UTF-8 text, failing as soon as it passes `maxBytes`. */
export async function readLimited(
  body: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array> | null,
  declaredBytes: number,
  maxBytes: number,
): Promise<string> {
  if (declaredBytes > maxBytes) throw tooLarge(maxBytes);
  const decoder = new TextDecoder();
  if (body === null) return '';
  // Chunks are kept and decoded once at the end: one decode of the whole body is cheaper than one per chunk.
  const chunks: Uint8Array[] = [];
  let received = 0;
  for await (const chunk of body as AsyncIterable<Uint8Array>) {
    received += chunk.byteLength;
    if (received > maxBytes) throw tooLarge(maxBytes);
    chunks.push(chunk);
  }
  if (chunks.length === 1) return decoder.decode(chunks[0]);
  const whole = new Uint8Array(received);
  let offset = 0;
  for (const chunk of chunks) {
    whole.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return decoder.decode(whole);
}

function tooLarge(maxBytes: number): FacadeError {
  return new FacadeError('upstream-too-large', `more than ${maxBytes} bytes`, { reason: 'too-large' });
}
