/**
 * Where a `next` paging link may be followed. The access token travels with every page, so a link
 * is only followed on the configured upstream origin and under its base path; see
 * docs/decisions.md ("Paging links").
 */
import { FacadeError } from '../errors.ts';

/** Encoded `/`, `\` and `.`: a server that decodes before routing could read them as `../`. */
const ENCODED_PATH_TRICKS = /%2f|%5c|%2e/i;

/**
 * The server's own base URL as its `self` link shows it (`http://internal-fhir:8080/fhir` from
 * `http://internal-fhir:8080/fhir/Encounter?…`): behind a reverse proxy, the address it writes into
 * its links, which may differ from ours in scheme, host, port and path prefix.
 */
export function serverBaseOf(selfLink: string | undefined, resourceType: string): string | undefined {
  if (selfLink === undefined) return undefined;
  try {
    const self = new URL(selfLink);
    const at = self.pathname.lastIndexOf(`/${resourceType}`);
    return at === -1 ? undefined : `${self.origin}${self.pathname.slice(0, at)}`;
  } catch {
    return undefined;
  }
}

/**
 * Resolves a `next` link from the page at `pageUrl` into the URL to fetch on the configured base.
 * Relative links, HAPI's `?_getpages=` on the server base, continuation tokens and `_offset` links
 * all arrive as ordinary URLs; a link naming another host (a server behind a proxy that writes its
 * internal name) is re-based onto the configured origin when its path lies under the base path, or
 * under the server's own base (`serverBase`, from its `self` link), which then maps onto ours.
 */
export function resolveNextLink(link: string, pageUrl: string, baseUrl: string, serverBase?: string): string {
  let target: URL;
  try {
    target = new URL(link, pageUrl);
  } catch (error) {
    throw new FacadeError('upstream-bad-body', 'unparseable next link', { cause: error, reason: 'not-fhir' });
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    throw refused('next link is not http(s)');
  }
  const base = new URL(baseUrl);
  if (ENCODED_PATH_TRICKS.test(target.pathname) || target.pathname.includes('//')) {
    throw refused('next link path is not a plain path');
  }
  const path = pathOnOurBase(target, base, serverBase);
  if (path === undefined) throw refused('next link path lies outside the configured base path');
  // Set the parts on a copy of the base, never parse `origin + path`: a path such as `//host/x`
  // would otherwise be read as another host.
  const rebased = new URL(base.origin);
  rebased.pathname = path;
  if (rebased.origin !== base.origin) {
    throw refused('next link would leave the configured origin');
  }
  // The query as parsed: `+`, `/`, `=` and percent escapes of a continuation token stay as written
  // (the URL parser encodes only what may not stand raw in a URL, as every HTTP client must).
  rebased.search = target.search;
  return rebased.href;
}

/** The link's path on our base: as it is when under our base path, else moved from the server's own base onto ours. */
function pathOnOurBase(target: URL, base: URL, serverBase: string | undefined): string | undefined {
  if (isUnderBasePath(target.pathname, base.pathname)) return target.pathname;
  if (serverBase === undefined) return undefined;
  const server = new URL(serverBase);
  if (target.origin !== server.origin || !isUnderBasePath(target.pathname, server.pathname)) return undefined;
  const ours = base.pathname.replace(/\/+$/, '');
  return `${ours}${target.pathname.slice(server.pathname.replace(/\/+$/, '').length)}` || '/';
}

function isUnderBasePath(path: string, basePath: string): boolean {
  const base = basePath.replace(/\/+$/, '');
  if (base === '') return true;
  return path === base || path.startsWith(`${base}/`);
}

function refused(detail: string): FacadeError {
  return new FacadeError('upstream-refused-link', detail, { reason: 'refused-link' });
}
