import type { Logger } from 'pino';
import type { Notifier, NotifyTarget } from './index.js';

/**
 * The notifier when no MESSENGER_BOT_TOKEN is configured (the embedded default): each alert is written to the log
 * at info, so an operator sees what would have been sent, and the dispatcher moves on as after a delivery.
 */
export class LogNotifier implements Notifier {
  constructor(private readonly logger: Pick<Logger, 'info'>) {}

  async send(target: NotifyTarget, text: string): Promise<void> {
    this.logger.info(
      { chat_id: target.chatId, alert: text },
      'rental alert (no MESSENGER_BOT_TOKEN: logged, not sent)',
    );
  }

  async close(): Promise<void> {}
}
