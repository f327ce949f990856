/**
 * Whether a text holds the caller's token, in any form a URL or a form body could carry it: the
 * service knows the token, so it can keep it out of everything it writes and sends (see
 * refuseTokenElsewhere in src/access/token-policy.ts and the last check in src/upstream/fhir-client.ts).
 */

/**
 * Tokens shorter than this are not looked for: a value that short is no secret (the old system's
 * tokens are 64 characters, JWTs longer), and looking for it would refuse ordinary requests
 * (`access_token=t` and `category=vital-signs`).
 */
export const MIN_TOKEN_LENGTH_SOUGHT = 8;

/**
 * Whether a decoded value holds the token. A `+` in a token reads as a space once a query or form
 * is decoded, and is written back as `+` when a URL is built again, so both spellings count.
 */
export function holdsToken(value: string, token: string): boolean {
  if (token.length < MIN_TOKEN_LENGTH_SOUGHT) return false;
  return value.includes(token) || (token.includes('+') && value.includes(token.replaceAll('+', ' ')));
}

/** Whether a URL holds the token as written, percent-encoded (any case) or form-encoded. */
export function urlHoldsToken(url: string, token: string): boolean {
  if (token.length < MIN_TOKEN_LENGTH_SOUGHT) return false;
  if (url.includes(token)) return true;
  let decoded: string;
  try {
    decoded = decodeURIComponent(url.replaceAll('+', ' '));
  } catch {
    return false; // not decodable: the token was looked for as written above
  }
  return holdsToken(decoded, token);
}
