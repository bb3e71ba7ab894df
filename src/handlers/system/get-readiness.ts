import { ApiError } from '../../errors/api-error.js';
import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';

/** Ready only while the database answers, so a load balancer can take this process out of rotation. */
export const getReadiness: Handler<'getReadiness'> = async ({ deps }) => {
  try {
    await deps.apiKeys.ping();
  } catch (err) {
    deps.logger.warn({ err }, 'readiness: database unreachable');
    throw new ApiError('not_ready', 'The database is unreachable');
  }
  return {
    status: 200,
    body: nativeOk({ status: 'ready' as const, checks: { database: 'ok' as const } }, 'Сервис готов'),
  };
};
