// The part of `cloudflare:test` these tests use (the full types need @cloudflare/workers-types,
// whose globals clash with the DOM and Node types the rest of the project is checked with).
declare module 'cloudflare:test' {
  /** The Worker of wrangler.toml (`main`), with its bindings, called as a service. */
  export const SELF: { fetch(input: string | Request, init?: RequestInit): Promise<Response> };
}
