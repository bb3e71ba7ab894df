import { ApiError } from '../../errors/api-error.js';
import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';
import { requirePrincipal } from '../require-principal.js';
import { usageRecordView } from '../views/usage-record-view.js';

export const getUsageRequest: Handler<'getUsageRequest'> = async ({ deps, principal, params }) => {
  const { accountId } = requirePrincipal(principal);
  const record = await deps.usage.get(accountId, params.log_id);
  if (record === null) throw new ApiError('usage_record_not_found');
  return { status: 200, body: nativeOk({ request: usageRecordView(record, deps.marketFxRateRubMicro, true) }) };
};
