import { ApiError } from '../../errors/api-error.js';
import type { Handler } from '../../http/operation-types.js';

/** A hosted file behind a signed link (the link is the credential; see FileLinks). */
export const getHostedFile: Handler<'getHostedFile'> = async ({ deps, params, query }) => {
  const nowMs = deps.now();
  if (!deps.fileLinks.verify(params.file, query.expires, query.signature, nowMs))
    throw new ApiError('file_link_invalid');
  const blob = await deps.blobs.get(params.file, nowMs);
  if (blob === null) throw new ApiError('file_not_found');
  const maxAgeSec = Math.max(0, query.expires - Math.floor(nowMs / 1000));
  return {
    status: 200,
    contentType: blob.meta.contentType,
    body: blob.bytes,
    headers: {
      'Cache-Control': `private, max-age=${maxAgeSec}`,
      'Content-Disposition': `inline; filename="${params.file}"`,
    },
  };
};
