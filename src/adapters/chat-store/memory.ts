import type { ChatRecord, ChatStore, DialogueRecord } from './index.js';

/** In-process twin of the chat-store port, for tests. Copies in and out, as the SQL store does. */
export class MemoryChatStore implements ChatStore {
  readonly #chats = new Map<string, ChatRecord>();
  readonly #dialogues = new Map<string, DialogueRecord[]>();

  async createChat(chat: ChatRecord): Promise<void> {
    this.#chats.set(chat.id, structuredClone(chat));
  }

  async getChat(id: string): Promise<ChatRecord | null> {
    const chat = this.#chats.get(id);
    return chat === undefined ? null : structuredClone(chat);
  }

  async listChats(accountId: string, limit: number, offset: number): Promise<ChatRecord[]> {
    return [...this.#chats.values()]
      .filter((chat) => chat.accountId === accountId)
      .reverse()
      .slice(offset, offset + limit)
      .map((chat) => structuredClone(chat));
  }

  async addDialogues(dialogues: DialogueRecord[]): Promise<void> {
    for (const dialogue of dialogues) {
      const list = this.#dialogues.get(dialogue.chatId) ?? [];
      list.push(structuredClone(dialogue));
      this.#dialogues.set(dialogue.chatId, list);
    }
  }

  async listDialogues(chatId: string): Promise<DialogueRecord[]> {
    return structuredClone(this.#dialogues.get(chatId) ?? []);
  }

  async resolvePlaceholder(
    chatId: string,
    jobId: string,
    outcome: Parameters<ChatStore['resolvePlaceholder']>[2],
  ): Promise<boolean> {
    const placeholder = this.#dialogues.get(chatId)?.find((d) => d.jobId === jobId && d.type === 'image_pending');
    if (placeholder === undefined) return false;
    Object.assign(
      placeholder,
      outcome.type === 'image'
        ? { type: 'image', image: structuredClone(outcome.image) }
        : { type: 'image_failed', content: outcome.content },
    );
    return true;
  }
}
