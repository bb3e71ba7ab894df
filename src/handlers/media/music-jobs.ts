import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';
import { requirePrincipal } from '../require-principal.js';

export const createMusicJob: Handler<'createMusicJob'> = async ({ deps, principal, body }) => ({
  status: 202,
  body: nativeOk((await deps.musicJobs.start(requirePrincipal(principal), body!)).view, 'Задача принята'),
});

/** SPEC 2.8: a failed job is a 200 with `status: failed`, not an HTTP error. */
export const getMusicJob: Handler<'getMusicJob'> = async ({ deps, principal, params }) => ({
  status: 200,
  body: nativeOk((await deps.musicJobs.get(requirePrincipal(principal), params.job_id)).view),
});

export const estimateMusicJob: Handler<'estimateMusicJob'> = ({ deps, principal, body }) => ({
  status: 200,
  body: nativeOk(deps.musicJobs.estimate(requirePrincipal(principal), body!)),
});
