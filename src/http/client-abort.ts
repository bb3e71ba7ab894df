import type { Request, Response } from 'express';
import { Canceller, type CancelSignal } from '../lib/cancel-signal.js';

/**
 * Aborted when the client goes away before the response is finished: what a long poll stops on, and how a stream
 * knows it writes to no one. Paid upstream work is never cancelled by it (UNCANCELLABLE, cancel-signal.ts).
 */
export function abortWhenClientLeaves(req: Request, res: Response): CancelSignal {
  const cancel = new Canceller();
  const onClose = () => {
    if (!res.writableFinished) cancel.abort(new Error('client closed the connection'));
  };
  res.once('close', onClose);
  req.once('aborted', onClose);
  return cancel;
}
