/**
 * The registry token dance's first step (distribution's token authentication spec, which Docker Hub, GHCR, Quay
 * and Harbor follow): a 401 names, in `WWW-Authenticate: Bearer realm="…",service="…",scope="…"`, where an
 * anonymous pull token is handed out. Pure parsing; the fetch is the adapter's.
 */

export interface BearerChallenge {
  realm: string;
  service?: string;
  scope?: string;
}

/** `key="quoted, with \" escapes"` or `key=token`, each followed by a comma or the end. */
const PARAM = /\s*([A-Za-z][\w-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,"]*))\s*(?:,|$)/y;

/** The Bearer challenge among the WWW-Authenticate values, or null (no header, Basic only, no realm). */
export function bearerChallenge(header: string | string[] | undefined): BearerChallenge | null {
  const values = header === undefined ? [] : Array.isArray(header) ? header : [header];
  for (const value of values) {
    const match = /^\s*Bearer\s+(.*)$/is.exec(value);
    if (match === null) continue;
    const params = parseParams(match[1] ?? '');
    const realm = params.get('realm');
    if (realm === undefined || realm === '') continue;
    const challenge: BearerChallenge = { realm };
    const service = params.get('service');
    const scope = params.get('scope');
    if (service !== undefined) challenge.service = service;
    if (scope !== undefined) challenge.scope = scope;
    return challenge;
  }
  return null;
}

/** Parameter names are case-insensitive (RFC 9110 11.2); parsing stops at the first thing that is not one. */
function parseParams(text: string): Map<string, string> {
  const params = new Map<string, string>();
  PARAM.lastIndex = 0;
  for (let match = PARAM.exec(text); match !== null && match[0] !== ''; match = PARAM.exec(text)) {
    const [, name = '', quoted, bare] = match;
    params.set(name.toLowerCase(), quoted === undefined ? (bare ?? '') : quoted.replace(/\\(.)/g, '$1'));
    if (PARAM.lastIndex >= text.length) break;
  }
  return params;
}
