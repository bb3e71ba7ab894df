import { nativeOk } from '../../http/native-ok.js';
import type { Handler, Reply } from '../../http/operation-types.js';
import { requirePrincipal } from '../require-principal.js';

/** SPEC 2.8: a failed job is a 200 with `status: failed`, not an HTTP error. */
export const getChatJob: Handler<'getChatJob'> = async ({ deps, principal, params }) => {
  const job = await deps.chatJobs.get(requirePrincipal(principal), params.job_id);
  return { status: 200, body: nativeOk(job) } as Reply<'getChatJob'>;
};
