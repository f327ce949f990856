/**
 * Helpers for the tests that hit a personality proxy directly: a plain FHIR GET, and a page walk
 * that follows `next` links as a correct client does (relative links resolved, a link naming the
 * server's internal base re-bound to where the proxy really is).
 */
import { expect } from 'vitest';
import type { EmbeddedFhir } from '../../../src/embedded/fhir-server.ts';
import type { PersonalityProxy } from './personality-proxy.ts';
import type { Searchset } from './searchset-rewrite.ts';

/** What one personality's own test gets: its proxy, and the embedded server behind it. */
export interface CheckContext {
  proxy: PersonalityProxy;
  embedded: EmbeddedFhir;
}

export type ProxyCheck = (ctx: CheckContext) => Promise<void>;

export interface Fetched<T = Searchset> {
  status: number;
  headers: Headers;
  body: T;
}

export async function getFhir<T = Searchset>(url: string, init?: RequestInit): Promise<Fetched<T>> {
  const response = await fetch(url, init);
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : undefined) as T };
}

/** A link as a correct client follows it: relative ones on the proxy origin, internal-base ones on the proxy base. */
export function bindToProxy(proxy: PersonalityProxy, link: string): string {
  const advertised = proxy.personality.advertisedBase;
  if (advertised !== undefined && link.startsWith(advertised)) return `${proxy.baseUrl}${link.slice(advertised.length)}`;
  return new URL(link, proxy.origin).href;
}

export function nextOf(bundle: Searchset): string | undefined {
  return bundle.link?.find((link) => link.relation === 'next')?.url;
}

/** Ids (`Type/id`) of the match entries of a page. */
export function matchIds(bundle: Searchset): string[] {
  return (bundle.entry ?? [])
    .filter((entry) => entry.search?.mode === 'match')
    .map((entry) => `${entry.resource?.resourceType}/${(entry.resource as { id?: string } | undefined)?.id}`);
}

/** Every page of a search from `url`, each answered 200; the raw next links as written. */
export async function walk(proxy: PersonalityProxy, url: string): Promise<{ pages: Searchset[]; links: string[]; ids: string[] }> {
  const pages: Searchset[] = [];
  const links: string[] = [];
  let current: string | undefined = url;
  while (current !== undefined) {
    const { status, body } = await getFhir(current);
    expect(status, `${current.slice(0, 200)} → ${JSON.stringify(body).slice(0, 200)}`).toBe(200);
    pages.push(body);
    expect(pages.length).toBeLessThan(200);
    const next = nextOf(body);
    if (next !== undefined) links.push(next);
    current = next === undefined ? undefined : bindToProxy(proxy, next);
  }
  return { pages, links, ids: pages.flatMap(matchIds) };
}

/** The match ids of the same search on the embedded server itself, all pages. */
export async function embeddedIds(embedded: EmbeddedFhir, pathAndQuery: string): Promise<string[]> {
  const ids: string[] = [];
  let url: string | undefined = `${embedded.baseUrl}${pathAndQuery}`;
  while (url !== undefined) {
    const body = (await (await fetch(url)).json()) as Searchset;
    ids.push(...matchIds(body));
    url = nextOf(body);
  }
  return ids;
}
