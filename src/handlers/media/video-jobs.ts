import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';
import { requirePrincipal } from '../require-principal.js';

export const createVideoJob: Handler<'createVideoJob'> = async ({ deps, principal, body }) => ({
  status: 202,
  body: nativeOk(await deps.videoJobs.start(requirePrincipal(principal), body!), 'Задача принята'),
});

/** SPEC 2.8: a failed job is a 200 with `status: failed`, not an HTTP error. */
export const getVideoJob: Handler<'getVideoJob'> = async ({ deps, principal, params }) => ({
  status: 200,
  body: nativeOk(await deps.videoJobs.get(requirePrincipal(principal), params.job_id)),
});

/** SPEC 3.2: the draft's 1080p final, a new job (202); once made, the same final again (200). */
export const finalizeVideoJob: Handler<'finalizeVideoJob'> = async ({ deps, principal, params }) => {
  const { view, created } = await deps.videoJobs.final(requirePrincipal(principal), params.job_id);
  return created ? { status: 202, body: nativeOk(view, 'Задача принята') } : { status: 200, body: nativeOk(view) };
};

export const estimateVideoJob: Handler<'estimateVideoJob'> = ({ deps, principal, body }) => ({
  status: 200,
  body: nativeOk(deps.videoJobs.estimate(requirePrincipal(principal), body!)),
});
