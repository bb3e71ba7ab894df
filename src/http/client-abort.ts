import type { Request, Response } from 'express';
import { Canceller, type CancelSignal } from '../cancel-signal.js';

/** Aborted when the client goes away before the response is finished, so the upstream call stops too (issue: abort on disconnect). */
export function abortWhenClientLeaves(req: Request, res: Response): CancelSignal {
  const cancel = new Canceller();
  const onClose = () => {
    if (!res.writableFinished) cancel.abort(new Error('client closed the connection'));
  };
  res.once('close', onClose);
  req.once('aborted', onClose);
  return cancel;
}
