import { estimateImage } from '../../domain/images/image-estimate.js';
import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';
import { requirePrincipal } from '../require-principal.js';

export const estimateImageJob: Handler<'estimateImageJob'> = ({ deps, principal, body }) => ({
  status: 200,
  body: nativeOk(estimateImage(deps, requirePrincipal(principal).account, body!)),
});
