import type { RequestHandler } from 'express';
import { newSortableId } from '../lib/ids.js';

/** SPEC 7.1.3: every response carries `X-Request-ID`; errors repeat it in the body. */
export const requestId: RequestHandler = (_req, res, next) => {
  const id = newSortableId('req');
  res.locals.requestId = id;
  res.setHeader('X-Request-ID', id);
  next();
};
