import type { Handler } from '../../http/operation-types.js';
import { nativeOk } from '../../http/native-ok.js';

export const getHealth: Handler<'getHealth'> = () => ({ status: 200, body: nativeOk({ status: 'ok' as const }, 'Сервис работает') });
