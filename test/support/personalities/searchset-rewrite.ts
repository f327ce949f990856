/**
 * What a personality does to a searchset page the embedded server answered: its own `next` link
 * (and only `self` + `next`, as Azure and Firely write page 1), `fullUrl`s on the base it believes
 * it has, `total` left out, and OperationOutcome entries (`search.mode: outcome`) first.
 */
import type { PageRequest, PagingStyle } from './paging-styles.ts';
import type { Personality, ProxyStats } from './personality.ts';
import { issue } from './proxy-answer.ts';

interface Entry {
  fullUrl?: string;
  resource?: { resourceType?: string };
  search?: { mode?: string };
}

export interface Searchset {
  resourceType: 'Bundle';
  type?: string;
  total?: number;
  link?: { relation: string; url: string }[];
  entry?: Entry[];
  [member: string]: unknown;
}

export interface PageContext {
  personality: Personality;
  embeddedBase: string;
  advertisedBase: string;
  style: PagingStyle;
  request: PageRequest;
  session: string | undefined;
  /** False for a page reached through a `next` link. */
  firstPage: boolean;
  /** Issues found while reading the request (a dropped parameter). */
  issues: object[];
  stats: ProxyStats;
}

/** Epic's "no results" warning (code list: api.enablemyhealth.com/Errors; UPSTREAMS.md §6). */
const EPIC_NO_RESULTS = { system: 'urn:oid:1.2.840.114350.1.13.0.1.7.2.657369', code: '4101' };

export function rewriteSearchset(bundle: Searchset, ctx: PageContext): Searchset {
  const { personality, stats } = ctx;
  const rebase = (url: string) => (url.startsWith(`${ctx.embeddedBase}/`) ? `${ctx.advertisedBase}${url.slice(ctx.embeddedBase.length)}` : url);
  const entries = (bundle.entry ?? []).map((entry) => (entry.fullUrl === undefined ? entry : { ...entry, fullUrl: rebase(entry.fullUrl) }));

  const embeddedNext = bundle.link?.find((link) => link.relation === 'next')?.url;
  const { path, rawQuery } = ctx.request;
  const link = [{ relation: 'self', url: `${ctx.advertisedBase}${path}${rawQuery ? `?${rawQuery}` : ''}` }];
  if (embeddedNext !== undefined) link.push({ relation: 'next', url: ctx.style.nextLink(new URL(embeddedNext), ctx.request, ctx.session) });

  const rewritten: Searchset = { ...bundle, link, entry: entries };
  if (personality.omitTotal && rewritten.total !== undefined) {
    delete rewritten.total;
    stats.totalsRemoved += 1;
  }

  const issues = [...ctx.issues];
  const matches = entries.filter((entry) => entry.search?.mode === 'match').length;
  if (personality.outcomes === 'epic-no-results' && matches === 0 && ctx.firstPage) {
    issues.push(issue('warning', 'processing', 'Resource request returns no results.', EPIC_NO_RESULTS));
    rewritten.total = 0;
    stats.noResultsWarnings += 1;
  } else if (personality.outcomes !== undefined) {
    // The text of information issues varies by server and search; a client must only skip them.
    issues.push(issue('information', 'informational', 'Search performed.'));
  }
  if (issues.length > 0) {
    // One OperationOutcome holding every issue, the first entry (Azure BundleFactory.CreateBundle).
    rewritten.entry = [{ resource: { resourceType: 'OperationOutcome', issue: issues } as Entry['resource'], search: { mode: 'outcome' } }, ...entries];
    stats.outcomeEntries += 1;
  }
  return rewritten;
}
