import type { Handler } from '../../http/operation-types.js';
import { REFERENCE_PAGE_CSP, referencePageHtml } from '../../http/reference-page.js';

/** DESIGN.md 12: the API reference, rendered in the browser from `/openapi.json` (src/http/reference-page.ts). */
export const getReferencePage: Handler<'getReferencePage'> = ({ deps }) => ({
  status: 200,
  contentType: 'text/html',
  headers: {
    'Content-Security-Policy': REFERENCE_PAGE_CSP,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    // Asked again on each visit: a new release names its assets anew.
    'Cache-Control': 'no-cache',
  },
  body: referencePageHtml(deps.contract.info.title),
});
