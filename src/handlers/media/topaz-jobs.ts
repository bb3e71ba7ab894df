import { restorationCatalog } from '../../domain/media/restoration-catalog.js';
import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';
import { requirePrincipal } from '../require-principal.js';

export const listTopazModels: Handler<'listTopazModels'> = ({ deps, principal }) => ({
  status: 200,
  body: nativeOk(restorationCatalog(deps.catalog, deps.routes, requirePrincipal(principal).account)),
});

export const createTopazImageJob: Handler<'createTopazImageJob'> = async ({ deps, principal, body }) => ({
  status: 202,
  body: nativeOk((await deps.topazImageJobs.start(requirePrincipal(principal), body!)).view, 'Задача принята'),
});

/** SPEC 2.8: a failed job is a 200 with `status: failed`, not an HTTP error. */
export const getTopazImageJob: Handler<'getTopazImageJob'> = async ({ deps, principal, params }) => ({
  status: 200,
  body: nativeOk((await deps.topazImageJobs.get(requirePrincipal(principal), params.job_id)).view),
});

export const createTopazVideoJob: Handler<'createTopazVideoJob'> = async ({ deps, principal, body }) => ({
  status: 202,
  body: nativeOk((await deps.topazVideoJobs.start(requirePrincipal(principal), body!)).view, 'Задача принята'),
});

export const getTopazVideoJob: Handler<'getTopazVideoJob'> = async ({ deps, principal, params }) => ({
  status: 200,
  body: nativeOk((await deps.topazVideoJobs.get(requirePrincipal(principal), params.job_id)).view),
});
