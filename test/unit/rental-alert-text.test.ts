import { describe, expect, it } from 'vitest';
import type { RentalEvent } from '../../src/adapters/alert-store/index.js';
import { rentalAlertText } from '../../src/domain/market/rental-alert-text.js';

const event = (over: Partial<RentalEvent>): RentalEvent => ({
  id: 1,
  instanceId: 'inst_abc',
  atMs: 0,
  status: 'running',
  reason: null,
  previous: { status: 'pending', reason: null },
  accountId: 'acc_1',
  gpuName: 'RTX_4090',
  gpuCount: 2,
  machineId: 'mch_9',
  chatId: '42',
  ...over,
});

describe('rental alert wording (SPEC 6.3: ours)', () => {
  it.each([
    [{ status: 'running' }, 'Rental inst_abc (2× RTX_4090) is running.'],
    [
      { status: 'running', previous: { status: 'offline', reason: 'host_offline' } },
      'Rental inst_abc (2× RTX_4090) is running again: its machine is back online.',
    ],
    [
      { status: 'offline', reason: 'host_offline', previous: { status: 'running', reason: null } },
      'Rental inst_abc (2× RTX_4090) is offline: machine mch_9 stopped responding. Nothing is billed until it is back.',
    ],
    [
      { status: 'stopped', reason: 'user' },
      'Rental inst_abc (2× RTX_4090) stopped at your request; billing has ended.',
    ],
    [
      { status: 'stopped', reason: 'insufficient_balance' },
      'Rental inst_abc (2× RTX_4090) stopped: insufficient balance. Top up and start it again.',
    ],
    [{ status: 'stopped', reason: 'plan_expired' }, 'Rental inst_abc (2× RTX_4090) stopped: its plan term is used up.'],
    [{ status: 'stopped', reason: 'error' }, 'Rental inst_abc (2× RTX_4090) stopped: its container exited on its own.'],
    [{ status: 'stopped', reason: null }, 'Rental inst_abc (2× RTX_4090) stopped.'],
    [{ status: 'terminated', reason: 'user' }, 'Rental inst_abc (2× RTX_4090) was deleted.'],
    [
      { status: 'terminated', reason: 'insufficient_balance' },
      'Rental inst_abc (2× RTX_4090) was terminated: insufficient balance.',
    ],
  ] as [Partial<RentalEvent>, string][])('%o', (over, text) => {
    expect(rentalAlertText(event(over))).toBe(text);
  });

  it('no alert for pending (placed or started again: the renter’s own request answered it)', () => {
    expect(rentalAlertText(event({ status: 'pending', previous: null }))).toBeNull();
    expect(rentalAlertText(event({ status: 'pending', previous: { status: 'stopped', reason: 'user' } }))).toBeNull();
  });

  it('no alert for a change of the desired status alone (the status was reported already)', () => {
    expect(rentalAlertText(event({ status: 'running', previous: { status: 'running', reason: null } }))).toBeNull();
    expect(
      rentalAlertText(event({ status: 'stopped', reason: 'user', previous: { status: 'stopped', reason: 'user' } })),
    ).toBeNull();
    expect(
      rentalAlertText(event({ status: 'stopped', reason: 'error', previous: { status: 'stopped', reason: 'user' } })),
    ).not.toBeNull();
  });
});
