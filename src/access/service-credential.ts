/**
 * The service's own credential to the upstream FHIR server in `service` mode: an OAuth 2.0 access
 * token from the client credentials grant, the client authenticated by a secret or by a signed JWT
 * assertion (SMART Backend Services). The token is kept, reused, and refreshed before it expires,
 * one refresh at a time. It is never logged: errors carry the token endpoint's status, never a body.
 */
import { importJWK, SignJWT, type JWK } from 'jose';
import { FacadeError } from '../errors.ts';
import { basicAuthorization, postForm } from './auth-server-post.ts';

export type ClientAuthentication =
  | { kind: 'secret'; secret: string; method: 'client_secret_basic' | 'client_secret_post' }
  | { kind: 'assertion'; privateJwk: JWK };

export interface ServiceCredentialOptions {
  tokenUrl: string;
  clientId: string;
  authentication: ClientAuthentication;
  scope?: string;
  fetch?: typeof fetch;
  /** Milliseconds since the epoch (injected by tests; `Date.now` otherwise). */
  now?: () => number;
}

/** Lifetime assumed when the token endpoint does not say (`expires_in` is only RECOMMENDED). */
const DEFAULT_LIFETIME_S = 300;
/** How long a client assertion is valid: SMART Backend Services allows at most five minutes. */
const ASSERTION_LIFETIME_S = 300;

interface HeldToken {
  value: string;
  /** When it must no longer be sent. */
  expiresAt: number;
  /** When a new one is fetched: 60 s before expiry, or at 80 % of a short lifetime. */
  refreshAt: number;
}

export class ServiceCredential {
  readonly #options: ServiceCredentialOptions;
  readonly #now: () => number;
  #held: HeldToken | undefined;
  /** The refresh under way: concurrent requests wait for the same one instead of each fetching. */
  #refreshing: Promise<HeldToken> | undefined;

  constructor(options: ServiceCredentialOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** The bearer token to send upstream now. */
  async bearer(): Promise<string> {
    const now = this.#now();
    const held = this.#held;
    if (held && now < held.refreshAt) return held.value;
    try {
      return (await this.#refresh()).value;
    } catch (error) {
      // A failed early refresh does not stop the service while the token it holds is still good.
      if (held && now < held.expiresAt) return held.value;
      throw error;
    }
  }

  /** Drops the held token (the upstream refused it): the next request fetches a new one. */
  forget(): void {
    this.#held = undefined;
  }

  #refresh(): Promise<HeldToken> {
    this.#refreshing ??= this.#fetchToken()
      .then((token) => (this.#held = token))
      .finally(() => (this.#refreshing = undefined));
    return this.#refreshing;
  }

  async #fetchToken(): Promise<HeldToken> {
    const { tokenUrl, clientId, authentication, scope } = this.#options;
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scope !== undefined) form.set('scope', scope);
    const headers: Record<string, string> = {};
    if (authentication.kind === 'assertion') {
      form.set('client_assertion_type', 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
      form.set('client_assertion', await this.#clientAssertion(authentication.privateJwk));
    } else if (authentication.method === 'client_secret_post') {
      form.set('client_id', clientId);
      form.set('client_secret', authentication.secret);
    } else {
      headers.authorization = basicAuthorization(clientId, authentication.secret);
    }
    const issuedAt = this.#now();
    const answer = await postForm(tokenUrl, form, headers, this.#options.fetch, 'upstream-credential-failed');
    if (answer.status !== 200 || typeof answer.body.access_token !== 'string' || answer.body.access_token === '') {
      throw new FacadeError('upstream-credential-failed', `the token endpoint answered HTTP ${answer.status} without an access token`, {
        reason: `http-${answer.status}`,
      });
    }
    const expiresIn = typeof answer.body.expires_in === 'number' && answer.body.expires_in > 0 ? answer.body.expires_in : DEFAULT_LIFETIME_S;
    const lifetimeMs = expiresIn * 1000;
    const expiresAt = issuedAt + lifetimeMs;
    return { value: answer.body.access_token, expiresAt, refreshAt: expiresAt - Math.min(60_000, lifetimeMs * 0.2) };
  }

  /** A SMART Backend Services client assertion: iss = sub = client id, aud = the token endpoint, a fresh jti. */
  async #clientAssertion(privateJwk: JWK): Promise<string> {
    const alg = privateJwk.alg ?? (privateJwk.kty === 'EC' ? 'ES384' : 'RS384');
    const key = await importJWK(privateJwk, alg);
    const nowS = Math.floor(this.#now() / 1000);
    const header = privateJwk.kid === undefined ? { alg, typ: 'JWT' } : { alg, typ: 'JWT', kid: privateJwk.kid };
    return new SignJWT({})
      .setProtectedHeader(header)
      .setIssuer(this.#options.clientId)
      .setSubject(this.#options.clientId)
      .setAudience(this.#options.tokenUrl)
      .setJti(crypto.randomUUID())
      .setIssuedAt(nowS)
      .setExpirationTime(nowS + ASSERTION_LIFETIME_S)
      .sign(key);
  }
}
