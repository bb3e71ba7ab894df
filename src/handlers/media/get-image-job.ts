import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';
import { requirePrincipal } from '../require-principal.js';

/** SPEC 2.8: a failed job is a 200 with `status: failed`, not an HTTP error. */
export const getImageJob: Handler<'getImageJob'> = async ({ deps, principal, params }) => ({
  status: 200,
  body: nativeOk(await deps.imageJobs.get(requirePrincipal(principal), params.job_id)),
});
