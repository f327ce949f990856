/**
 * SMART on FHIR patient scopes, v1 and v2, reduced to what a read-only service asks: may this token
 * read records of a type by id, and may it search them?
 *
 * - v1 `patient/<Type|*>.read` (or `.*`) grants both.
 * - v2 `patient/<Type|*>.<cruds>` grants a by-id read with `r` and a search with `s`
 *   (`patient/Observation.rs` both; `.r` reads by id only; `.s` searches only).
 * - v2 granular scopes (`patient/Observation.rs?category=…`) are not honoured: the service cannot
 *   narrow every route by them, and granting more than the scope says is not an option. So are
 *   `user/` and `system/` scopes: this is a patient-access interface; a token acts for one patient.
 */

export type Access = 'read' | 'search';

export class ScopeGrants {
  readonly #grants = new Map<string, Set<Access>>();

  constructor(readonly scopes: readonly string[]) {
    for (const scope of scopes) {
      const match = /^patient\/([A-Za-z]+|\*)\.([a-z*]+)$/.exec(scope);
      if (!match) continue;
      const [, type = '', action = ''] = match;
      const granted = new Set<Access>();
      if (action === 'read' || action === '*') granted.add('read').add('search');
      // v2: any of c, r, u, d, s in that order; only r and s matter to a read-only service.
      else if (/^c?r?u?d?s?$/.test(action)) {
        if (action.includes('r')) granted.add('read');
        if (action.includes('s')) granted.add('search');
      }
      const held = this.#grants.get(type) ?? new Set<Access>();
      for (const access of granted) held.add(access);
      this.#grants.set(type, held);
    }
  }

  /** Whether records of `type` may be read by id, or searched. */
  allows(type: string, access: Access): boolean {
    return Boolean(this.#grants.get(type)?.has(access) || this.#grants.get('*')?.has(access));
  }

  /** Whether records of `type` may be seen at all (an included record came by a search or a read). */
  allowsAny(type: string): boolean {
    return this.allows(type, 'read') || this.allows(type, 'search');
  }
}

/** Scopes from a token or introspection answer: `scope` (space-separated) or `scp` (array or string). */
export function scopesOf(claims: Record<string, unknown>): string[] {
  const raw = claims.scope ?? claims.scp;
  if (typeof raw === 'string') return raw.split(' ').filter((scope) => scope !== '');
  if (Array.isArray(raw)) return raw.filter((scope): scope is string => typeof scope === 'string');
  return [];
}
