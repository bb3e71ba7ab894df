import type { ApiKeyStore } from '../../adapters/api-keys/index.js';
import type { DepositStore } from '../../adapters/deposit-store/index.js';
import type { Ledger } from '../../adapters/ledger/index.js';
import type { Rails } from './deposit-rails.js';
import type { UsdtRail } from './usdt-deposits.js';

/** What the deposit flows use (DESIGN.md 11); built once by the composition root. */
export interface PaymentsContext {
  deposits: DepositStore;
  ledger: Ledger;
  apiKeys: ApiKeyStore;
  rails: Rails;
  /** The USDT-TRC20 rail; null when it is off (TRON_XPUB or TRON_NODE_URL missing). */
  usdt: UsdtRail | null;
  /** Where a processor sends the person back after paying: PUBLIC_BASE_URL's deposits page. */
  returnUrl: string;
  /** Today's RUB per USD × 1e6: the rate a ruble deposit is credited at and its lot keeps (SPEC 4.3). */
  rubRateMicro: bigint;
  now: () => number;
}
