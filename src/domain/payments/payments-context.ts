import type { ApiKeyStore } from '../../adapters/api-keys/index.js';
import type { DepositStore } from '../../adapters/deposit-store/index.js';
import type { Ledger } from '../../adapters/ledger/index.js';
import type { Rails } from './deposit-rails.js';

/** What the deposit flows use (DESIGN.md 11); built once by the composition root. */
export interface PaymentsContext {
  deposits: DepositStore;
  ledger: Ledger;
  apiKeys: ApiKeyStore;
  rails: Rails;
  /** The account's USDT-TRC20 address at derivation index `i` (m/44'/195'/0'/0/i of TRON_XPUB); null: the rail is off. */
  tronAddress: ((index: number) => string) | null;
  /** Where a processor sends the person back after paying: PUBLIC_BASE_URL's deposits page. */
  returnUrl: string;
  /** Today's RUB per USD × 1e6: the rate a ruble deposit is credited at and its lot keeps (SPEC 4.3). */
  rubRateMicro: bigint;
  now: () => number;
}
