import { MediaLoadError, type MediaLoader } from '../../adapters/media-fetch/index.js';
import { isRecord } from '../../lib/is-record.js';
import { startsAsImage } from '../images/image-header.js';
import { messageError } from '../text/chat-validation.js';

/** Where one http(s) image link of a chat sits. */
interface ImageLink {
  message: number;
  part: number;
  url: string;
}

const HINT = 'send a public, direct-download link to a PNG, JPEG, GIF or WebP image, or the image as a data URI';
/** What is read of a link: its signature, not the image; the upstream downloads the image itself. */
const PROBE_BYTES = 16;

/** The http(s) image links of validated messages (data URIs were checked whole by validateChatMessages). */
function imageLinksOf(messages: readonly unknown[]): ImageLink[] {
  const links: ImageLink[] = [];
  messages.forEach((message, index) => {
    if (!isRecord(message) || !Array.isArray(message.content)) return;
    message.content.forEach((part: unknown, j: number) => {
      if (!isRecord(part) || part.type !== 'image_url' || !isRecord(part.image_url)) return;
      const { url } = part.image_url;
      if (typeof url === 'string' && !url.startsWith('data:')) links.push({ message: index, part: j, url });
    });
  });
  return links;
}

/** Why the link is not an image a vision upstream can read; null when it is one. */
async function linkProblem(media: MediaLoader, url: string): Promise<string | null> {
  try {
    const { bytes } = await media.probe(url, PROBE_BYTES);
    return !startsAsImage(bytes) ? 'the link is not a PNG, JPEG, GIF or WebP image' : null;
  } catch (err) {
    if (!(err instanceof MediaLoadError)) throw err;
    return `the image could not be loaded (${err.message})`;
  }
}

/**
 * SPEC 7.2 invalid_image_payload, "URL unreachable" (issue 24 item 6): every http(s) image link of a chat is loaded
 * through the SSRF-safe loader before the hold, so a link no upstream could read is the caller's 400 rather than a
 * prompt billed for an answer about nothing. Only the first bytes of each are read (a probe); chats without links
 * pay nothing for it; each distinct link is probed once, all of them at the same time.
 */
export async function assertImageLinksLoad(media: MediaLoader, messages: readonly unknown[]): Promise<void> {
  const links = imageLinksOf(messages);
  if (links.length === 0) return;
  const urls = [...new Set(links.map((link) => link.url))];
  const problems = new Map(await Promise.all(urls.map(async (url) => [url, await linkProblem(media, url)] as const)));
  for (const { message, part, url } of links) {
    const problem = problems.get(url) ?? null;
    if (problem !== null)
      throw messageError('invalid_image_payload', message, 'content', `part ${part}: ${problem}`, { hint: HINT });
  }
}
