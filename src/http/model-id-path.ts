import type { RequestHandler } from 'express';

/** `GET /v1/compat/models/{model}` with everything after `models/` as the id; case-insensitive like express. */
const COMPAT_MODEL_PATH = /^(\/v1\/compat\/models\/)([^?]+\/[^?]*)(\?.*)?$/i;

/**
 * Model ids of the external tier carry a slash (`writer/palmyra-x5`), and a caller typing the URL (curl, a
 * browser) sends it as is: `/v1/compat/models/writer/palmyra-x5`. One path segment per parameter is what the
 * router matches, so the slashes inside the id are encoded before routing, and the path reads as the id
 * (issue 24 item 3). Only this path takes a slash-bearing id; an encoded `%2F` already arrives as one segment.
 */
export const modelIdPath: RequestHandler = (req, _res, next) => {
  const match = COMPAT_MODEL_PATH.exec(req.url);
  if (match !== null) req.url = `${match[1]}${match[2]!.replaceAll('/', '%2F')}${match[3] ?? ''}`;
  next();
};
