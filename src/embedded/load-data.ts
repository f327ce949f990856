// Loading data into the embedded server the way a FHIR server processes a transaction: POST
// entries get server-assigned (numeric) ids, PUT entries keep theirs, and every reference to an
// entry's fullUrl is rewritten to the stored `Type/id`.
import type { Bundle, BundleEntry, Resource } from '@medplum/fhirtypes';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isKnownResourceType } from './definitions.ts';
import type { IndexedMemoryRepository } from './resource-store.ts';

/** Resources written (created or replaced) per resource type, e.g. `{ Patient: 10, Observation: 1800 }`. */
export type LoadSummary = Readonly<Record<string, number>>;

export interface LoadOptions {
  /**
   * Answers a conditional create (`request.ifNoneExist`, e.g. `identifier=x|1`) with the ids of
   * the existing `type` resources it matches. Without it, conditional creates always create.
   */
  readonly findExisting?: (type: string, query: string) => string[];
}

const LOADABLE_BUNDLE_TYPES = new Set(['transaction', 'batch', 'collection', 'searchset']);
const FHIR_ID = /^[A-Za-z0-9\-.]{1,64}$/;

/** One entry's outcome, decided before anything is written so a bad bundle writes nothing. */
interface PlannedEntry {
  readonly entry: BundleEntry;
  readonly resource: Resource;
  readonly type: string;
  readonly id: string;
  /** False for a conditional create that found its resource already stored. */
  readonly write: boolean;
}

// The file each bundle read by readDataDir came from, so load errors can name it
const bundleSources = new WeakMap<Bundle, string>();

// Per store, the next candidate numeric id per resource type. Ids are handed out in load order
// from 1, skipping ids already taken, so the same data loaded the same way gets the same ids.
const nextIds = new WeakMap<IndexedMemoryRepository, Map<string, number>>();

/** Loads bundles in order (each one all-or-nothing as far as validation goes). */
export async function loadBundles(store: IndexedMemoryRepository, bundles: readonly Bundle[], options: LoadOptions = {}): Promise<LoadSummary> {
  const byType: Record<string, number> = {};
  for (const [index, bundle] of bundles.entries()) {
    const label = bundleSources.get(bundle) ?? `Bundle ${index}${bundle.id ? ` (id ${bundle.id})` : ''}`;
    const planned = planBundle(store, bundle, label, options);
    const fullUrlMap = new Map<string, string>();
    for (const p of planned) {
      for (const alias of referenceAliases(p.entry, p.type)) {
        fullUrlMap.set(alias, `${p.type}/${p.id}`);
      }
    }
    for (const p of planned.filter((e) => e.write)) {
      const resource = rewriteReferences(structuredClone(p.resource), fullUrlMap) as Resource;
      resource.id = p.id;
      // The server, not the data, owns versionId and lastUpdated
      delete resource.meta?.versionId;
      delete resource.meta?.lastUpdated;
      await store.updateResource(resource);
      byType[p.type] = (byType[p.type] ?? 0) + 1;
    }
  }
  return byType;
}

function planBundle(store: IndexedMemoryRepository, bundle: Bundle, label: string, options: LoadOptions): PlannedEntry[] {
  if (bundle?.resourceType !== 'Bundle' || !LOADABLE_BUNDLE_TYPES.has(bundle.type ?? '')) {
    throw new Error(`${label}: expected a transaction, batch, collection or searchset Bundle`);
  }
  const entries = (bundle.entry ?? []).filter((e) => e.search?.mode !== 'outcome');
  const isTransaction = bundle.type === 'transaction' || bundle.type === 'batch';
  const where = (i: number) => `${label}, entry ${i}`;

  // Explicit ids first, so that numbering new resources skips ids this bundle is about to use
  const explicit = entries.map((entry, i) => explicitId(entry, isTransaction, where(i)));
  const reserved = new Set(explicit.filter(Boolean).map((e) => `${e?.type}/${e?.id}`));

  return entries.map((entry, i) => {
    const resource = entry.resource;
    if (!resource || !isKnownResourceType(resource.resourceType)) {
      throw new Error(`${where(i)}: missing resource or unknown resourceType`);
    }
    const type = resource.resourceType;
    const given = explicit[i];
    if (given) {
      return { entry, resource, type, id: given.id, write: true };
    }
    const ifNoneExist = entry.request?.ifNoneExist;
    if (ifNoneExist && options.findExisting) {
      let found: string[];
      try {
        found = options.findExisting(type, ifNoneExist.replace(/^\?/, ''));
      } catch (err) {
        throw new Error(`${where(i)}: cannot evaluate ifNoneExist ${ifNoneExist}: ${describeError(err)}`);
      }
      if (found.length > 1) {
        throw new Error(`${where(i)}: ifNoneExist ${ifNoneExist} matches ${found.length} ${type} resources`);
      }
      if (found[0]) {
        return { entry, resource, type, id: found[0], write: false };
      }
    }
    return { entry, resource, type, id: allocateId(store, type, reserved), write: true };
  });
}

/** The id an entry keeps: PUT's url id, or the resource's own id outside transactions. */
function explicitId(entry: BundleEntry, isTransaction: boolean, where: string): { type: string; id: string } | undefined {
  const resource = entry.resource;
  if (!resource) {
    throw new Error(`${where}: entry has no resource`);
  }
  let id: string | undefined;
  if (isTransaction) {
    const method = entry.request?.method;
    const url = entry.request?.url ?? '';
    if (method === 'POST') {
      if (url.split('?')[0] !== resource.resourceType) {
        throw new Error(`${where}: POST url ${url} does not match resourceType ${resource.resourceType}`);
      }
      return undefined; // the server assigns the id; a client-supplied resource.id is ignored
    }
    if (method !== 'PUT') {
      throw new Error(`${where}: only POST and PUT entries can be loaded, got ${method ?? 'no request'}`);
    }
    const [type, urlId, ...rest] = url.split('/');
    if (url.includes('?') || type !== resource.resourceType || !urlId || rest.length > 0) {
      throw new Error(`${where}: PUT url must be ${resource.resourceType}/<id>, got ${url}`);
    }
    if (resource.id && resource.id !== urlId) {
      throw new Error(`${where}: resource id ${resource.id} differs from PUT url ${url}`);
    }
    id = urlId;
  } else {
    id = resource.id;
  }
  if (id === undefined) {
    return undefined;
  }
  if (!FHIR_ID.test(id)) {
    throw new Error(`${where}: invalid FHIR id ${JSON.stringify(id)}`);
  }
  return { type: resource.resourceType, id };
}

function describeError(err: unknown): string {
  const outcome = (err as { outcome?: { issue?: { details?: { text?: string } }[] } }).outcome;
  return outcome?.issue?.[0]?.details?.text ?? (err instanceof Error ? err.message : String(err));
}

function allocateId(store: IndexedMemoryRepository, type: string, reserved: ReadonlySet<string>): string {
  let counters = nextIds.get(store);
  if (!counters) {
    counters = new Map();
    nextIds.set(store, counters);
  }
  let next = counters.get(type) ?? 1;
  while (store.has(type, String(next)) || reserved.has(`${type}/${next}`)) {
    next++;
  }
  counters.set(type, next + 1);
  return String(next);
}

/**
 * The reference texts that point at an entry: its fullUrl (urn:uuid or absolute URL) and, for an
 * absolute fullUrl `<base>/<Type>/<id>`, the relative `Type/id` other entries may use for it.
 */
function referenceAliases(entry: BundleEntry, type: string): string[] {
  const fullUrl = entry.fullUrl;
  if (!fullUrl) {
    return [];
  }
  const aliases = [fullUrl];
  const relative = new RegExp(`/(${type}/[A-Za-z0-9\\-.]{1,64})$`).exec(fullUrl);
  if (relative?.[1] && /^https?:/.test(fullUrl)) {
    aliases.push(relative[1]);
  }
  return aliases;
}

/** Rewrites every `reference` string found anywhere in the JSON (nested, arrays, contained). */
function rewriteReferences(node: unknown, map: ReadonlyMap<string, string>): unknown {
  if (Array.isArray(node)) {
    for (const item of node) {
      rewriteReferences(item, map);
    }
  } else if (node && typeof node === 'object') {
    const obj = node as Record<string, unknown>;
    for (const [key, value] of Object.entries(obj)) {
      if (key === 'reference' && typeof value === 'string') {
        const target = map.get(value);
        if (target) {
          obj[key] = target;
        }
      } else if (value && typeof value === 'object') {
        rewriteReferences(value, map);
      }
    }
  }
  return node;
}

/**
 * Reads every `*.json` file (one FHIR Bundle: transaction, batch, collection or searchset) and
 * every `*.ndjson` file (one resource per line, loaded as a collection) in `dir`, sorted by name
 * so that loading is deterministic. A file that cannot be used is an error naming that file.
 */
export async function readDataDir(dir: string): Promise<Bundle[]> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.json') || n.endsWith('.ndjson')).sort();
  const bundles: Bundle[] = [];
  for (const name of names) {
    const path = join(dir, name);
    const text = await readFile(path, 'utf8');
    const bundle = name.endsWith('.ndjson') ? parseNdjson(text, path) : parseBundleFile(text, path);
    bundleSources.set(bundle, path);
    bundles.push(bundle);
  }
  return bundles;
}

function parseBundleFile(text: string, path: string): Bundle {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`${path}: invalid JSON (${(err as Error).message})`);
  }
  const bundle = json as Partial<Bundle> | null;
  if (bundle?.resourceType !== 'Bundle' || !LOADABLE_BUNDLE_TYPES.has(bundle.type ?? '')) {
    throw new Error(`${path}: not a FHIR transaction, batch, collection or searchset Bundle`);
  }
  return bundle as Bundle;
}

function parseNdjson(text: string, path: string): Bundle {
  const entry: BundleEntry[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '') {
      continue;
    }
    let resource: Resource;
    try {
      resource = JSON.parse(line) as Resource;
    } catch (err) {
      throw new Error(`${path}:${i + 1}: invalid JSON (${(err as Error).message})`);
    }
    if (!resource || typeof resource !== 'object' || typeof resource.resourceType !== 'string') {
      throw new Error(`${path}:${i + 1}: not a FHIR resource`);
    }
    entry.push({ resource });
  }
  return { resourceType: 'Bundle', type: 'collection', entry };
}
