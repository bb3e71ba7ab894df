/** SPEC 6.3: the messenger chat the caller's rental status alerts go to (paths and shapes ours). */
import type { components } from '../../../generated/openapi.js';
import type { AlertTarget } from '../../adapters/alert-store/index.js';
import { orUnavailable } from '../../errors/api-error.js';
import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';
import { requirePrincipal } from '../require-principal.js';

/** A target never set is no chat linked and rental alerts on: linking a chat is the opt-in. */
function view(target: AlertTarget | null): components['schemas']['NotificationSettings'] {
  return { messenger_chat_id: target?.messengerChatId ?? null, rentals: target?.rentalsEnabled ?? true };
}

export const getNotificationSettings: Handler<'getNotificationSettings'> = async ({ deps, principal }) => {
  const { accountId } = requirePrincipal(principal);
  const target = await orUnavailable(() => deps.alerts.getTarget(accountId), 'settings store');
  return { status: 200, body: nativeOk(view(target)) };
};

/** Links (null unlinks) the chat; the dispatcher reads it when it sends, so it applies to every change not alerted yet. */
export const setNotificationSettings: Handler<'setNotificationSettings'> = async ({ deps, principal, body }) => {
  const { accountId } = requirePrincipal(principal);
  const target = {
    accountId,
    messengerChatId: body?.messenger_chat_id ?? null,
    rentalsEnabled: body?.rentals ?? true,
    updatedAtMs: deps.now(),
  };
  await orUnavailable(() => deps.alerts.putTarget(target), 'settings store');
  return { status: 200, body: nativeOk(view(target), 'Настройка сохранена') };
};
