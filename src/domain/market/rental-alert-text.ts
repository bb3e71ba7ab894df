/**
 * What a rental status alert says (SPEC 6.3 leaves triggers and format to us). One short line per status change a
 * renter did not just cause through the API answer in front of them:
 *
 * - `pending` (placed, or started again) is not news: the renter's own request answered it; `running` follows.
 * - An event that changes only the desired status repeats the status already reported, so it says nothing.
 * - `running`, `offline`, `stopped` (with why) and `terminated` are, including a stop the renter asked for: the
 *   alert confirms the machine let go (and billing ended), which the API answer only promised.
 */
import type { RentalEvent } from '../../adapters/alert-store/index.js';
import type { StatusReason } from '../../adapters/market-store/index.js';

/** Why a rental stopped or ended (docs/marketplace.md: `status_reason`). */
const BECAUSE: Record<StatusReason, string> = {
  user: 'at your request',
  insufficient_balance: 'insufficient balance',
  plan_expired: 'its plan term is used up',
  error: 'its container exited on its own',
  host_offline: 'its machine went offline',
  start_timeout: 'its machine did not start it in time',
};

function stopped(reason: StatusReason | null): string {
  if (reason === null) return 'stopped.';
  if (reason === 'user') return 'stopped at your request; billing has ended.';
  return `stopped: ${BECAUSE[reason]}.${reason === 'insufficient_balance' ? ' Top up and start it again.' : ''}`;
}

/** The alert for one rental event, or null when the event needs none. */
export function rentalAlertText(event: RentalEvent): string | null {
  const { previous } = event;
  if (event.status === 'pending') return null;
  if (previous !== null && previous.status === event.status && previous.reason === event.reason) return null;
  const rental = `Rental ${event.instanceId} (${event.gpuCount}× ${event.gpuName})`;
  switch (event.status) {
    case 'running':
      return previous?.status === 'offline'
        ? `${rental} is running again: its machine is back online.`
        : `${rental} is running.`;
    case 'offline':
      return `${rental} is offline: machine ${event.machineId} stopped responding. Nothing is billed until it is back.`;
    case 'stopped':
      return `${rental} ${stopped(event.reason)}`;
    case 'terminated':
      return event.reason === null || event.reason === 'user'
        ? `${rental} was deleted.`
        : `${rental} was terminated: ${BECAUSE[event.reason]}.`;
  }
}
