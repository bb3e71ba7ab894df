import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';
import { requirePrincipal } from '../require-principal.js';

export const createImageJob: Handler<'createImageJob'> = async ({ deps, principal, body }) => ({
  status: 202,
  body: nativeOk(await deps.imageJobs.start(requirePrincipal(principal), body!), 'Задача принята'),
});
