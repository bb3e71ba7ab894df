import type { ApiKeyStore } from '../../adapters/api-keys/index.js';
import type { Ledger, LotSpec, Micros, Transfer } from '../../adapters/ledger/index.js';
import { DomainError } from '../../errors/domain-error.js';
import { newId } from '../../lib/ids.js';

export interface TopUpInput {
  accountId: string;
  usdMicros: Micros;
  /** A ruble top-up: the rubles paid (micro-RUB) and/or the rate (RUB per USD × 1e6). Absent: a dollar top-up. */
  rub?: { rubMicro?: bigint; fxRateRubMicro?: bigint };
  /** Today's rate, recorded on dollar top-ups so their money can be shown in rubles later (SPEC 2.6). */
  marketRateMicro: bigint;
  /** Idempotency key (e.g. the payment processor's id); a fresh one when absent. */
  id?: string;
  nowMs: number;
}

/** The rate a ruble top-up was paid at: given, or rubles paid ÷ dollars credited, half-up. */
function rubRate(usdMicros: Micros, rub: NonNullable<TopUpInput['rub']>): bigint {
  if (rub.fxRateRubMicro !== undefined) return rub.fxRateRubMicro;
  if (rub.rubMicro === undefined)
    throw new DomainError('invalid_amount', 'A ruble top-up needs the rubles paid or the rate');
  return (rub.rubMicro * 1_000_000n + usdMicros / 2n) / usdMicros;
}

/**
 * Credits a top-up as a lot carrying its rate (SPEC 1.10, 4.3): the balance stays in USD; the lot's rate
 * prices the spend it pays for once ruble billing is on.
 */
export async function topUp(
  ledger: Ledger,
  apiKeys: ApiKeyStore,
  input: TopUpInput,
): Promise<{ transfer: Transfer; lot: LotSpec }> {
  if (input.usdMicros <= 0n) throw new DomainError('invalid_amount', 'A top-up must be a positive amount of USD');
  if ((await apiKeys.getAccount(input.accountId)) === null)
    throw new DomainError('account_not_found', `No account ${input.accountId}`);
  const lot: LotSpec =
    input.rub === undefined
      ? { currency: 'USD' as const, fxRateRubMicro: input.marketRateMicro }
      : { currency: 'RUB' as const, fxRateRubMicro: rubRate(input.usdMicros, input.rub) };
  if (lot.fxRateRubMicro <= 0n) throw new DomainError('invalid_amount', 'The rate must be positive');
  const outcome = await ledger.credit({
    id: input.id ?? `topup:${newId('top')}`,
    accountId: input.accountId,
    amountMicros: input.usdMicros,
    lot,
    nowMs: input.nowMs,
    memo: lot.currency === 'RUB' ? 'ruble top-up' : 'top-up',
  });
  if (!outcome.ok) throw new DomainError('invalid_amount', `The top-up was refused: ${outcome.reason}`);
  return { transfer: outcome.transfer, lot };
}
