/**
 * A real OAuth 2.0 / OpenID authorization server (oidc-provider) on loopback for the access-control
 * tests. It issues JWT access tokens by the client credentials grant (through a resource indicator,
 * so they are JWTs with an audience), each "patient app" client getting the patient claim and the
 * scopes a portal login would give it; it answers introspection and revocation, serves its JWKS, and
 * issues the facade's own upstream credential (by client secret or by a signed JWT assertion).
 */
import { generateKeyPair, exportJWK, type JWK } from 'jose';
import Provider from 'oidc-provider';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { memoryStore } from './oidc-memory-store.ts';

/** The audience of tokens meant for the facade, and one meant for another API. */
export const FACADE_AUDIENCE = 'https://facade.test/';
export const OTHER_AUDIENCE = 'https://other-api.test/';
/**
 * The facade again, with opaque tokens: oidc-provider keeps only those in its store, so only they can be
 * introspected (its JWT access tokens are self-contained and introspect as inactive).
 */
export const OPAQUE_FACADE_AUDIENCE = 'https://facade.test/opaque';

export interface PatientApp {
  clientId: string;
  secret: string;
  patient: string;
  /** Scopes the client may ask for and asks for. */
  scope: string;
  /** Lifetime of its tokens in seconds (short ones make expired tokens). */
  ttl?: number;
}

export interface AuthorizationServer {
  issuer: string;
  tokenUrl: string;
  introspectionUrl: string;
  revocationUrl: string;
  jwksUrl: string;
  /** The client the facade introspects with. */
  introspector: { clientId: string; secret: string };
  /** The facade's upstream credential clients: by secret, and by a private JWK (SMART Backend Services). */
  upstreamSecretClient: { clientId: string; secret: string };
  upstreamAssertionClient: { clientId: string; privateJwk: JWK };
  /** Client-credentials grants issued, by client id (how often a client fetched a token). */
  grantsIssued: Map<string, number>;
  /** Requests received, by path (`/token/introspection`, `/jwks`): how often the facade asked. */
  requestsTo: Map<string, number>;
  /**
   * Rotates the signing key as a real server does: a new key signs from now on, and the JWKS
   * publishes it next to the old one (tokens already issued stay verifiable).
   */
  rotateSigningKey(): Promise<void>;
  /** A token for a client: `resource` picks its audience. */
  tokenFor(app: { clientId: string; secret: string; scope?: string }, resource?: string): Promise<string>;
  revoke(app: { clientId: string; secret: string }, token: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * The facade's environment for service mode against this server: its upstream credential by client
 * secret, and callers' tokens validated as JWTs (`jwt`) or by introspection.
 */
export function serviceModeEnv(as: AuthorizationServer, upstreamUrl: string, validation: 'jwt' | 'introspection'): Record<string, string> {
  const credential = {
    UPSTREAM_URL: upstreamUrl,
    UPSTREAM_AUTH_MODE: 'service',
    UPSTREAM_TOKEN_URL: as.tokenUrl,
    UPSTREAM_CLIENT_ID: as.upstreamSecretClient.clientId,
    UPSTREAM_CLIENT_SECRET: as.upstreamSecretClient.secret,
  };
  if (validation === 'jwt') {
    return { ...credential, CALLER_TOKEN_VALIDATION: 'jwt', JWKS_URL: as.jwksUrl, TOKEN_ISSUER: as.issuer, TOKEN_AUDIENCE: FACADE_AUDIENCE };
  }
  return {
    ...credential,
    CALLER_TOKEN_VALIDATION: 'introspection',
    INTROSPECTION_URL: as.introspectionUrl,
    INTROSPECTION_CLIENT_ID: as.introspector.clientId,
    INTROSPECTION_CLIENT_SECRET: as.introspector.secret,
  };
}

const ALL_SCOPES = [
  'patient/*.read',
  'patient/*.rs',
  'patient/Patient.read',
  'patient/Condition.read',
  'patient/Observation.read',
  'patient/Observation.rs',
  'patient/Condition.rs',
  'patient/Condition.r',
  'system/*.read',
];

export async function startAuthorizationServer(apps: PatientApp[], options: { upstreamTokenTtl?: number } = {}): Promise<AuthorizationServer> {
  const signingKey = async (kid: string): Promise<JWK> => {
    const signing = await generateKeyPair('RS256', { extractable: true });
    return { ...(await exportJWK(signing.privateKey)), kid, alg: 'RS256', use: 'sig' };
  };
  /** The signing keys, the one signing now first (oidc-provider signs with the first that fits). */
  let signingKeys = [await signingKey('as-signing')];
  const assertion = await generateKeyPair('RS384', { extractable: true });
  const assertionPublic = { ...(await exportJWK(assertion.publicKey)), kid: 'facade-assertion', alg: 'RS384' };
  const assertionPrivate = { ...(await exportJWK(assertion.privateKey)), kid: 'facade-assertion', alg: 'RS384' };

  const introspector = { clientId: 'facade-introspection', secret: 'introspection-secret-0123456789' };
  const upstreamSecretClient = { clientId: 'facade-upstream', secret: 'upstream-secret-0123456789abcdef' };
  const upstreamAssertionClient = { clientId: 'facade-upstream-jwt', privateJwk: assertionPrivate };
  const ccClient = { grant_types: ['client_credentials'], redirect_uris: [], response_types: [] };
  const byClient = new Map(apps.map((app) => [app.clientId, app]));
  // Every scope a test app asks for is one the server knows.
  const scopes = [...new Set([...ALL_SCOPES, ...apps.flatMap((app) => app.scope.split(' '))])];
  const upstreamTtl = options.upstreamTokenTtl ?? 3600;

  // Listening first: the issuer must name the port.
  const server = await new Promise<Server>((resolve) => {
    const listening = createServer();
    listening.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const grantsIssued = new Map<string, number>();
  const requestsTo = new Map<string, number>();

  // A provider's keys are fixed when it is made: a rotation makes a new one, on the same store.
  const store = memoryStore();
  const makeProvider = () => {
    const provider = new Provider(issuer, {
      adapter: store,
      jwks: { keys: signingKeys },
      clients: [
        ...apps.map((app) => ({ client_id: app.clientId, client_secret: app.secret, scope: app.scope, ...ccClient })),
        { client_id: introspector.clientId, client_secret: introspector.secret, grant_types: [], redirect_uris: [], response_types: [] },
        { client_id: upstreamSecretClient.clientId, client_secret: upstreamSecretClient.secret, scope: 'system/*.read', ...ccClient },
        {
          client_id: upstreamAssertionClient.clientId,
          token_endpoint_auth_method: 'private_key_jwt',
          token_endpoint_auth_signing_alg: 'RS384',
          jwks: { keys: [assertionPublic] },
          scope: 'system/*.read',
          ...ccClient,
        },
      ],
      scopes,
      cookies: { keys: ['test-cookie-key-0123456789abcdef'] },
      ttl: { ClientCredentials: (_ctx, token) => token.resourceServer?.accessTokenTTL ?? 600 },
      clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'private_key_jwt'],
      // SMART Backend Services asks for RS384 or ES384 client assertions.
      enabledJWA: { clientAuthSigningAlgValues: ['RS384', 'ES384', 'RS256'] },
      features: {
        introspection: { enabled: true, allowedPolicy: async (_ctx, client) => client.clientId === introspector.clientId },
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        revocation: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => FACADE_AUDIENCE,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx, resource, client) => ({
            scope: scopes.join(' '),
            audience: resource,
            accessTokenFormat: resource === OPAQUE_FACADE_AUDIENCE ? 'opaque' : 'jwt',
            accessTokenTTL: byClient.get(client.clientId)?.ttl ?? (client.clientId.startsWith('facade-upstream') ? upstreamTtl : 3600),
            jwt: { sign: { alg: 'RS256' } },
          }),
        },
      },
      // The portal login's launch context: the patient the token acts for, and a subject for audit.
      extraTokenClaims: (_ctx, token) => {
        const app = byClient.get(String((token as { clientId?: string }).clientId));
        return app ? { patient: app.patient, sub: app.clientId } : undefined;
      },
    });
    provider.on('grant.success', (ctx) => {
      const clientId = ctx.oidc.client?.clientId ?? '';
      grantsIssued.set(clientId, (grantsIssued.get(clientId) ?? 0) + 1);
    });
    return provider.callback();
  };
  let handle = makeProvider();
  server.on('request', (req, res) => {
    const path = new URL(req.url ?? '/', issuer).pathname;
    requestsTo.set(path, (requestsTo.get(path) ?? 0) + 1);
    void handle(req, res);
  });

  const form = async (url: string, app: { clientId: string; secret: string }, body: Record<string, string>) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${btoa(`${app.clientId}:${app.secret}`)}` },
      body: new URLSearchParams(body).toString(),
    });

  return {
    issuer,
    tokenUrl: `${issuer}/token`,
    introspectionUrl: `${issuer}/token/introspection`,
    revocationUrl: `${issuer}/token/revocation`,
    jwksUrl: `${issuer}/jwks`,
    introspector,
    upstreamSecretClient,
    upstreamAssertionClient,
    grantsIssued,
    requestsTo,
    async rotateSigningKey() {
      signingKeys = [await signingKey(`as-signing-${signingKeys.length + 1}`), ...signingKeys];
      handle = makeProvider();
    },
    async tokenFor(app, resource = FACADE_AUDIENCE) {
      const scope = app.scope ?? byClient.get(app.clientId)?.scope ?? '';
      const response = await form(`${issuer}/token`, app, { grant_type: 'client_credentials', scope, resource });
      const body = (await response.json()) as { access_token?: string };
      if (!body.access_token) throw new Error(`no token for ${app.clientId}: ${JSON.stringify(body)}`);
      return body.access_token;
    },
    async revoke(app, token) {
      const response = await form(`${issuer}/token/revocation`, app, { token, token_type_hint: 'access_token' });
      if (response.status !== 200) throw new Error(`revocation answered ${response.status}`);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
