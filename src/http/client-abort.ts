import type { Request, Response } from 'express';

/** Aborted when the client goes away before the response is finished, so the upstream call stops too (issue: abort on disconnect). */
export function abortWhenClientLeaves(req: Request, res: Response): AbortSignal {
  const controller = new AbortController();
  const onClose = () => {
    if (!res.writableFinished) controller.abort(new Error('client closed the connection'));
  };
  res.once('close', onClose);
  req.once('aborted', onClose);
  return controller.signal;
}
