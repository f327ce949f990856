/**
 * Where a `next` paging link may be followed. The access token travels with every page, so a link
 * is only followed on the configured upstream origin and under its base path; see
 * docs/decisions.md ("Paging links").
 */
import { FacadeError } from '../errors.ts';

/** Encoded `/`, `\` and `.`: a server that decodes before routing could read them as `../`. */
const ENCODED_PATH_TRICKS = /%2f|%5c|%2e/i;

/**
 * Resolves a `next` link from the page at `pageUrl` into the URL to fetch on the configured base.
 * Relative links, HAPI's `?_getpages=` on the server base, continuation tokens and `_offset` links
 * all arrive as ordinary URLs; a link naming another host (a server behind a proxy that writes its
 * internal name) is re-based onto the configured origin when its path lies under the base path.
 */
export function resolveNextLink(link: string, pageUrl: string, baseUrl: string): string {
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
  if (!isUnderBasePath(target.pathname, base.pathname)) {
    throw refused('next link path lies outside the configured base path');
  }
  // Set the parts on a copy of the base, never parse `origin + path`: a path such as `//host/x`
  // would otherwise be read as another host.
  const rebased = new URL(base.origin);
  rebased.pathname = target.pathname;
  rebased.search = target.search;
  if (rebased.origin !== base.origin) {
    throw refused('next link would leave the configured origin');
  }
  return rebased.href;
}

function isUnderBasePath(path: string, basePath: string): boolean {
  const base = basePath.replace(/\/+$/, '');
  if (base === '') return true;
  return path === base || path.startsWith(`${base}/`);
}

function refused(detail: string): FacadeError {
  return new FacadeError('upstream-refused-link', detail, { reason: 'refused-link' });
}
