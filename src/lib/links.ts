/** An http(s) URL in running text: up to whitespace, a quote or an angle bracket (RFC 3986 appendix C). */
const LINK = /https?:\/\/[^\s<>"]+/g;
/** Sentence punctuation right after a link belongs to the sentence. */
const TRAILING_PUNCTUATION = /[.,;:!?)\]]+$/;

/** The http(s) links in a text, in order, e.g. the confirmation link of a sign-up mail. */
export function linksIn(text: string): string[] {
  return [...text.matchAll(LINK)].map(([link]) => link.replace(TRAILING_PUNCTUATION, ''));
}
