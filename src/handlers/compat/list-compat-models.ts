import type { Handler } from '../../http/operation-types.js';

export const listCompatModels: Handler<'listCompatModels'> = ({ deps }) => ({
  status: 200,
  body: deps.catalog.compatModels(),
});
