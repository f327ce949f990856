/**
 * The paging styles of real servers (UPSTREAMS.md, "next-link token" and "link absolute" rows),
 * written over the embedded server's own `_offset` paging: each style turns the embedded server's
 * `next` URL into the link its server writes, and turns such a link, when it comes back, into the
 * embedded URL of that page (or into the error its server answers).
 */
import { randomUUID } from 'node:crypto';
import { PagingTokens, continuationToken, looksLikeToken, tokenInLink } from './paging-tokens.ts';
import type { PagingStyleName, TokenExpiry } from './personality.ts';
import { outcomeAnswer, rawQueryValue, withoutRawMember, type ProxyAnswer } from './proxy-answer.ts';

/** A request as it reached the proxy: the path below the FHIR base ('' or '/Type…') and its raw query. */
export interface PageRequest {
  path: string;
  rawQuery: string;
}

/** The embedded URL of a requested page, with the paging session it belongs to (if the style has sessions). */
export interface ResolvedPage {
  url: string;
  session?: string;
}

export interface PagingStyle {
  /** For a request that follows one of this style's links: the page to fetch, or the server's error. */
  resolvePage(request: PageRequest): ResolvedPage | ProxyAnswer | undefined;
  /** The `next` link this server writes for the embedded server's next page of `request`. */
  nextLink(embeddedNext: URL, request: PageRequest, session: string | undefined): string;
}

export interface PagingSetup {
  /** e.g. http://127.0.0.1:40001/fhir */
  embeddedBase: string;
  /** The base written in links (absolute). */
  advertisedBase: string;
  /** Largest page the server gives (also on its own page links). */
  pageCap: number;
  expiry?: TokenExpiry;
}

export function pagingStyle(name: PagingStyleName, setup: PagingSetup): PagingStyle {
  switch (name) {
    case 'offset':
      return renamedOffset(setup, '_offset');
    case 'skip':
      return renamedOffset(setup, '_skip');
    case 'relative-page':
      return relativePages(setup);
    case 'getpages':
      return getpages(setup);
    case 'continuation-token':
      return continuationTokens(setup);
  }
}

/** The path below the embedded base and the query of an embedded URL. */
function belowEmbedded(url: URL, setup: PagingSetup): { path: string; params: URLSearchParams } {
  const basePath = new URL(setup.embeddedBase).pathname;
  return { path: url.pathname.slice(basePath.length), params: new URLSearchParams(url.search) };
}

function embeddedUrl(setup: PagingSetup, path: string, params: URLSearchParams): string {
  return `${setup.embeddedBase}${path}?${params}`;
}

/** Stateless offset paging under the server's own parameter name (`_offset`, Firely's `_skip`). */
function renamedOffset(setup: PagingSetup, name: string): PagingStyle {
  return {
    resolvePage({ path, rawQuery }) {
      const params = new URLSearchParams(rawQuery);
      const offset = params.get(name);
      if (offset === null) return undefined;
      params.delete(name);
      params.set('_offset', offset);
      return { url: embeddedUrl(setup, path, params) };
    },
    nextLink(next) {
      const { path, params } = belowEmbedded(next, setup);
      const offset = params.get('_offset') ?? '0';
      params.delete('_offset');
      params.set(name, offset);
      return `${setup.advertisedBase}${path}?${params}`;
    },
  };
}

/** Aidbox: `/Type?…&_count=C&_page=N` (1-based), written relative to the server root (§11). */
function relativePages(setup: PagingSetup): PagingStyle {
  return {
    resolvePage({ path, rawQuery }) {
      const params = new URLSearchParams(rawQuery);
      const page = params.get('_page');
      if (page === null) return undefined;
      const count = Number(params.get('_count') ?? setup.pageCap);
      params.delete('_page');
      params.set('_offset', String((Number(page) - 1) * count));
      return { url: embeddedUrl(setup, path, params) };
    },
    nextLink(next) {
      const { path, params } = belowEmbedded(next, setup);
      const offset = Number(params.get('_offset') ?? 0);
      const count = Number(params.get('_count') ?? setup.pageCap);
      params.delete('_offset');
      params.delete('_count');
      params.append('_count', String(count));
      params.append('_page', String(offset / count + 1));
      return `${new URL(setup.advertisedBase).pathname.replace(/\/$/, '')}${path}?${params}`;
    },
  };
}

interface CachedSearch {
  /** The embedded search URL without `_offset` / `_count`. */
  search: string;
}

/** HAPI: a cached search named by a uuid, paged with `_getpagesoffset` on the server base (§1). */
function getpages(setup: PagingSetup): PagingStyle {
  const sessions = new PagingTokens<CachedSearch>(setup.expiry ?? { ttlMs: 60 * 60_000 });
  return {
    resolvePage({ path, rawQuery }) {
      const params = new URLSearchParams(rawQuery);
      const id = params.get('_getpages');
      if (id === null || (path !== '' && path !== '/')) return undefined;
      const offset = params.get('_getpagesoffset') ?? '0';
      const redeemed = sessions.redeem(id, offset);
      if ('gone' in redeemed) {
        return outcomeAnswer(410, 'processing', `HAPI-0417: Search ID "${id}" does not exist and may have expired`);
      }
      // HAPI lowers `_count` on `_getpages` too (PageMethodBinding.java).
      const count = Math.min(Number(params.get('_count') ?? setup.pageCap), setup.pageCap);
      return { url: `${redeemed.value.search}&_count=${count}&_offset=${offset}`, session: id };
    },
    nextLink(next, _request, session) {
      const { params } = belowEmbedded(next, setup);
      const offset = params.get('_offset') ?? '0';
      const count = params.get('_count') ?? String(setup.pageCap);
      let id = session;
      if (id === undefined) {
        params.delete('_offset');
        params.delete('_count');
        const search = `${next.origin}${next.pathname}?${params}`;
        id = randomUUID();
        sessions.issue(id, { search }, sessions.startsExpired(search));
      }
      return `${setup.advertisedBase}?_getpages=${id}&_getpagesoffset=${offset}&_count=${count}&_bundletype=searchset`;
    },
  };
}

/**
 * Azure: the original query plus `ct=<token>`; the server keeps token → page (§3). An unknown
 * token is a 400, a malformed one a 500 (microsoft/fhir-server#1415), an expired one a 410.
 */
function continuationTokens(setup: PagingSetup): PagingStyle {
  const tokens = new PagingTokens<string>(setup.expiry ?? {});
  return {
    resolvePage({ rawQuery }) {
      const raw = rawQueryValue(rawQuery, 'ct');
      if (raw === undefined) return undefined;
      const redeemed = tokens.redeem(raw);
      if ('value' in redeemed) return { url: redeemed.value, session: 'continued' };
      if (redeemed.gone === 'expired') return outcomeAnswer(410, 'processing', 'The continuation token has expired');
      // Read as a query value is read (form decoding: a raw `+` is a space).
      let decoded = '';
      try {
        decoded = decodeURIComponent(raw.replaceAll('+', ' '));
      } catch {
        // broken percent-encoding: malformed
      }
      if (!looksLikeToken(decoded)) return outcomeAnswer(500, 'exception', 'Object reference not set to an instance of an object.');
      return outcomeAnswer(400, 'invalid', 'Invalid continuation token');
    },
    nextLink(next, { path, rawQuery }, session) {
      const original = withoutRawMember(rawQuery, 'ct');
      // A chain of tokens is one paging session: only its first page can be born expired.
      const expired = session === undefined && tokens.startsExpired(`${path}?${original}`);
      const token = tokenInLink(continuationToken());
      tokens.issue(token, next.href, expired);
      return `${setup.advertisedBase}${path}?${original}${original ? '&' : ''}ct=${token}`;
    },
  };
}
