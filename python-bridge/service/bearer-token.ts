import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Whether an Authorization header carries `token` in the Bearer scheme. The scheme is
 * case-insensitive (RFC 7235: "bearer", "BEARER"); the credentials are compared as SHA-256
 * digests with timingSafeEqual, so a wrong token of any length takes the same path as a right one.
 */
export function bearerTokenMatches(header: string | undefined, token: string): boolean {
  const match = /^[ \t]*bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
  const given = createHash('sha256').update(match?.[1] ?? '', 'utf8').digest();
  const expected = createHash('sha256').update(token, 'utf8').digest();
  return timingSafeEqual(given, expected) && match !== null;
}
