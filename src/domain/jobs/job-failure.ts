import type { components } from '../../../generated/openapi.js';
import { ApiError } from '../../errors/api-error.js';

type JobFailureCode = components['schemas']['JobFailureCode'];

/** What a failed media job's record says (SPEC 2.8, 7.5): the human reason and its typed cause. */
export interface JobFailure {
  error: string;
  error_code: JobFailureCode;
}

/** What a render that ran out of its budget says: the budget configured, not the spec's default (SPEC 7.2, 8). */
export function renderTimeoutMessage(budgetMs: number): string {
  return `The render did not finish within ${Number((budgetMs / 1000).toFixed(1))} seconds; nothing was charged`;
}

/**
 * SPEC 7.5: a refusal on content policy is `content_moderation` (the chain does not re-route it), an input a
 * model refused is `input_rejected`, and everything else the upstreams did, the alternate routes included,
 * `generation_failed`. An error of ours is reported without its details.
 */
export function jobFailure(err: unknown, budgetMs: number): JobFailure {
  if (!(err instanceof ApiError))
    return { error: new ApiError('internal_error').message, error_code: 'generation_failed' };
  switch (err.code) {
    case 'content_filter':
      return { error: err.message, error_code: 'content_moderation' };
    case 'upstream_validation_error':
    case 'invalid_image_payload':
      return { error: err.message, error_code: 'input_rejected' };
    case 'render_timeout':
    case 'upstream_timeout':
      return { error: renderTimeoutMessage(budgetMs), error_code: 'generation_failed' };
    default:
      return { error: err.message, error_code: 'generation_failed' };
  }
}
