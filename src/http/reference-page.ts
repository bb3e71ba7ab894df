/**
 * The API reference page (DESIGN.md 12, issue 28): `GET /docs` renders the bundled contract with Swagger UI, whose
 * files come from the `swagger-ui-dist` package and are served by this gateway under `/docs/assets/`. The page asks
 * nothing of any other origin (no CDN, no web fonts, no validator badge), and its Content-Security-Policy holds it
 * to that. Swagger UI was chosen over Redoc and Scalar for being one package with no dependencies and no install
 * script that still runs on Node 20 (docs/api.md, "The reference page").
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { RequestHandler } from 'express';

/** Where the page and its assets live, and where the page reads the contract from (getOpenapiJson). */
const REFERENCE_PATH = '/docs';
export const ASSETS_PATH = `${REFERENCE_PATH}/assets`;
const CONTRACT_PATH = '/openapi.json';

/**
 * Only this origin. `img-src data:`: the renderer's stylesheet draws its icons as inline SVG images. No inline
 * script or style is needed: the page's own script is a file too (below), and the renderer sets styles through
 * the DOM, which a CSP does not restrict.
 */
export const REFERENCE_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Starts the renderer on the contract. No validator badge (it sends the document's address to an outside
 * service) and no configuration from the address bar (`?url=` would render another document under this origin).
 * "Try it out" calls the gateway the page came from, whatever name it is reached by (the CSP allows only that),
 * so the contract's `servers` are replaced by this origin in the page's copy.
 */
const STARTER_SCRIPT = `fetch(${JSON.stringify(CONTRACT_PATH)})
  .then((response) => response.json())
  .then((spec) => {
    spec.servers = [{ url: window.location.origin, description: 'This gateway' }];
    window.ui = SwaggerUIBundle({
      spec,
      dom_id: '#reference',
      deepLinking: true,
      validatorUrl: null,
      queryConfigEnabled: false,
    });
  });
`;

interface Asset {
  /** The name it is served under: the file's own, with a hash of its bytes, so it may be cached for good. */
  name: string;
  contentType: string;
  bytes: Buffer;
  gzipped: Buffer;
}

interface Assets {
  byName: Map<string, Asset>;
  script: string;
  starter: string;
  stylesheet: string;
  icon: string;
}

function asset(file: string, contentType: string, bytes: Buffer): Asset {
  const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 12);
  const dot = file.lastIndexOf('.');
  const name = `${file.slice(0, dot)}.${hash}${file.slice(dot)}`;
  return { name, contentType, bytes, gzipped: gzipSync(bytes) };
}

/** Read once, on the first request that needs them: a process that never serves the page never reads 1.5 MB. */
let loaded: Assets | undefined;
function assets(): Assets {
  if (loaded !== undefined) return loaded;
  const folder = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const read = (file: string) => readFileSync(join(folder, file));
  // The stylesheet names a source map the package ships but we do not serve: a browser's developer tools would
  // ask for it and log a failed request.
  const css = read('swagger-ui.css')
    .toString('utf8')
    .replace(/\/\*# sourceMappingURL=[^*]*\*\/\s*$/, '');
  const list = {
    script: asset('swagger-ui-bundle.js', 'text/javascript; charset=utf-8', read('swagger-ui-bundle.js')),
    starter: asset('reference-page.js', 'text/javascript; charset=utf-8', Buffer.from(STARTER_SCRIPT)),
    stylesheet: asset('swagger-ui.css', 'text/css; charset=utf-8', Buffer.from(css)),
    icon: asset('favicon-32x32.png', 'image/png', read('favicon-32x32.png')),
  };
  const url = (a: Asset) => `${ASSETS_PATH}/${a.name}`;
  loaded = {
    byName: new Map(Object.values(list).map((a) => [a.name, a])),
    script: url(list.script),
    starter: url(list.starter),
    stylesheet: url(list.stylesheet),
    icon: url(list.icon),
  };
  return loaded;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The page: the renderer's stylesheet and script, then ours, which starts it on `/openapi.json`. */
export function referencePageHtml(title: string): string {
  const a = assets();
  const heading = escapeHtml(`${title}: API reference`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${heading}</title>
<link rel="icon" type="image/png" href="${a.icon}">
<link rel="stylesheet" href="${a.stylesheet}">
</head>
<body>
<div id="reference"></div>
<script src="${a.script}"></script>
<script src="${a.starter}"></script>
</body>
</html>
`;
}

/**
 * `GET /docs/assets/<name>`: the page's files, kept a year (their names change with their bytes), gzipped for
 * clients that take it. Not operations of the contract: they are the renderer's files, named by their hash, of
 * no use to a client generated from the contract. An unknown name falls through to the 404 of unmatched routes.
 */
export const referenceAssets: RequestHandler = (req, res, next) => {
  const found = assets().byName.get(String(req.params.name));
  if (found === undefined) return next();
  // Gzip only when asked for by name: a client that sends no Accept-Encoding (curl) gets the bytes as they are.
  const gzip = req.get('accept-encoding') !== undefined && req.acceptsEncodings('gzip', 'identity') === 'gzip';
  res.set({
    'Content-Type': found.contentType,
    'Cache-Control': 'public, max-age=31536000, immutable',
    'X-Content-Type-Options': 'nosniff',
    Vary: 'Accept-Encoding',
  });
  if (gzip) res.set('Content-Encoding', 'gzip');
  res.status(200).send(gzip ? found.gzipped : found.bytes);
};
