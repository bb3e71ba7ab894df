/**
 * The notifier port: one short text to one linked messenger chat (SPEC 6.3: "Status alerts via linked messenger
 * notifications exist for rentals; their triggers and format are not part of this interface").
 *
 * Adapters: `messenger-bot.ts` (a bot over HTTP in the Telegram Bot API wire format), `log.ts` (the alert written
 * to the log, when no bot token is configured) and `memory.ts` (the twin tests read). A send that fails throws a
 * `NotifierError` saying whether trying again can help, so the dispatcher (src/domain/market/rental-alerts.ts)
 * retries or drops without knowing the messenger.
 */

export interface NotifyTarget {
  /** The messenger's chat id: a number as text, or `@channel`. */
  chatId: string;
}

export interface Notifier {
  /** Resolves once the messenger accepted the message; throws a NotifierError when it did not. */
  send(target: NotifyTarget, text: string): Promise<void>;
  /** Gives back connections; no send after it. */
  close(): Promise<void>;
}

export class NotifierError extends Error {
  constructor(
    message: string,
    /** True when sending the same message again cannot succeed (no such chat, the bot was blocked). */
    readonly permanent: boolean,
    /** The messenger's own "not before" hint (rate limited), in ms from now. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'NotifierError';
  }
}
