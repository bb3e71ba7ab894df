/**
 * A response body read until it passes `limit` bytes at most (leaving the loop destroys the rest, unread), and
 * whether anything was left: what the upstream client and the image registry client both need from a peer whose
 * answer may be of any size. A body that breaks midway throws, or with `keepOnBreak` gives what had arrived.
 */
export async function readUpTo(
  body: AsyncIterable<Buffer>,
  limit: number,
  keepOnBreak = false,
): Promise<{ bytes: Buffer; cut: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let cut = false;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      size += chunk.length;
      if (size > limit) {
        cut = true;
        break;
      }
    }
  } catch (error) {
    if (!keepOnBreak) throw error;
  }
  return { bytes: Buffer.concat(chunks), cut };
}
