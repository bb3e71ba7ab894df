import { ApiError } from '../../errors/api-error.js';
import type { Handler } from '../../http/operation-types.js';

export const getCompatModel: Handler<'getCompatModel'> = ({ deps, params }) => {
  const model = deps.catalog.compatModel(params.model);
  if (model === undefined)
    throw new ApiError('model_not_found', `The model '${params.model}' does not exist`, {
      param: 'model',
      notFound: true,
    });
  return { status: 200, body: model };
};
