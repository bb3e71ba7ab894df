import type { HandlerMap } from '../http/operation-types.js';
import { listCompatModels } from './compat/list-compat-models.js';
import { createApiKey } from './llm/create-api-key.js';
import { getModelCatalog } from './llm/get-model-catalog.js';
import { listApiKeys } from './llm/list-api-keys.js';
import { revokeApiKey } from './llm/revoke-api-key.js';
import { getHealth } from './system/get-health.js';
import { getReadiness } from './system/get-readiness.js';

/** operationId → handler; `satisfies` makes the map exhaustive over the contract (DESIGN.md 1). */
export const handlers = {
  getHealth,
  getReadiness,
  getModelCatalog,
  listCompatModels,
  listApiKeys,
  createApiKey,
  revokeApiKey,
} satisfies HandlerMap;
