import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';
import { requirePrincipal } from '../require-principal.js';

export const createAudioJob: Handler<'createAudioJob'> = async ({ deps, principal, body }) => ({
  status: 202,
  body: nativeOk((await deps.audioJobs.start(requirePrincipal(principal), body!)).view, 'Задача принята'),
});

/** SPEC 2.8: a failed job is a 200 with `status: failed`, not an HTTP error. */
export const getAudioJob: Handler<'getAudioJob'> = async ({ deps, principal, params }) => ({
  status: 200,
  body: nativeOk((await deps.audioJobs.get(requirePrincipal(principal), params.job_id)).view),
});

export const estimateAudioJob: Handler<'estimateAudioJob'> = ({ deps, principal, body }) => ({
  status: 200,
  body: nativeOk(deps.audioJobs.estimate(requirePrincipal(principal), body!)),
});
