import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';

export const getHealth: Handler<'getHealth'> = () => ({
  status: 200,
  body: nativeOk({ status: 'ok' as const }, 'Сервис работает'),
});
