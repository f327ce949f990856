/**
 * A tiny canned server that echoes the access token it is sent back in an answer, written in one
 * of the forms a real server might use (plain, percent-encoded in its several ways, JSON-escaped,
 * as HTML character references), in the body or in a recorded header:
 *
 * - `GET /echo/<form>`: a Bundle whose next link, and a long note, end with the token in that form
 *   (placed so that the diff's 80- and 4000-character cuts fall inside the token);
 * - `GET /echo-header/<form>`: `{"ok":true}`, the token in that form in `etag` and `cache-control`;
 * - anything else, or no token sent: a Bundle that holds no token.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The token as it appears in the answer, by form; every form is valid inside a JSON string and a header. */
export const ECHO_FORMS: Record<string, (token: string) => string> = {
  plain: (token) => token,
  'inside-a-word': (token) => `access_token%3D${token}xyz`,
  'bearer-encoded-space': (token) => `Bearer%20${token}`,
  'uri-component': (token) => encodeURIComponent(token),
  'form-encoded': (token) => new URLSearchParams([['t', token]]).toString().slice(2),
  'lower-case-hex': (token) =>
    new URLSearchParams([['t', token]])
      .toString()
      .slice(2)
      .replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()),
  'json-escaped-slash': (token) => token.replaceAll('/', '\\/'),
  'json-unicode-escape': (token) => token.replaceAll('/', '\\u002F').replaceAll('~', '\\u007e'),
  'double-encoded': (token) => encodeURIComponent(encodeURIComponent(token)),
  'triple-encoded-lower-case-hex': (token) =>
    encodeURIComponent(encodeURIComponent(encodeURIComponent(token))).replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()),
  'html-references': (token) => token.replaceAll('/', '&#x2F;').replaceAll('+', '&#43;'),
};

/** A token in RFC 6750 syntax using the characters that get encoded (`~ / + =`), random hex at both ends. */
export function encodableToken(): string {
  return `${randomBytes(8).toString('hex')}~Tok/en+${randomBytes(8).toString('hex')}==`;
}

/** 10-character pieces of the token (its hex ends): finding one in an output means part of the token leaked. */
export function tokenSlices(token: string): string[] {
  return [token.slice(0, 10), token.slice(3, 13), token.slice(-14, -4)];
}

export const NO_TOKEN_BODY = '{"resourceType":"Bundle","type":"searchset","link":[{"relation":"next","url":"/x?page=2"}],"note":"none"}';

export interface EchoServer {
  url: string;
  close(): Promise<void>;
}

/** `site`: the host of the links it writes, so that two echo servers answer differently. */
export async function startEchoServer(site = 'legacy.example.org'): Promise<EchoServer> {
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://echo');
    const token = url.searchParams.get('access_token');
    const [, kind = '', form = ''] = url.pathname.split('/');
    const encode = ECHO_FORMS[form];
    if (!token || !encode || (kind !== 'echo' && kind !== 'echo-header')) {
      response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'private' }).end(NO_TOKEN_BODY);
      return;
    }
    const echoed = encode(token);
    if (kind === 'echo-header') {
      response.writeHead(200, { 'content-type': 'application/json', etag: `W/"${echoed}"`, 'cache-control': `private, x-echo=${echoed}` }).end('{"ok":true}');
      return;
    }
    const link = `https://${site}/next?page=2&access_token=${echoed}`;
    const note = `${'n'.repeat(3980)}${echoed}`;
    const body = `{"resourceType":"Bundle","type":"searchset","link":[{"relation":"next","url":"${link}"}],"note":"${note}"}`;
    response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'private' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
