import type { Knex } from 'knex';
import type { Database } from '../../db/connect.js';
import type { ChatRecord, ChatStore, DialogueRecord, DialogueType } from './index.js';

interface ChatRow {
  id: string;
  account_id: string;
  title: string;
  created_at_ms: number | bigint;
}

interface DialogueRow {
  id: string;
  chat_id: string;
  seq: number | bigint;
  role: string;
  type: string;
  content: string | null;
  model: string | null;
  job_id: string | null;
  image: string | null;
  created_at_ms: number | bigint;
}

const chatOf = (row: ChatRow): ChatRecord => ({
  id: row.id,
  accountId: row.account_id,
  title: row.title,
  createdAtMs: Number(row.created_at_ms),
});

const dialogueOf = (row: DialogueRow): DialogueRecord => ({
  id: row.id,
  chatId: row.chat_id,
  role: row.role as DialogueRecord['role'],
  type: row.type as DialogueType,
  content: row.content,
  model: row.model,
  jobId: row.job_id,
  image: row.image === null ? null : (JSON.parse(row.image) as DialogueRecord['image']),
  createdAtMs: Number(row.created_at_ms),
});

/** The chat-store port over knex, on SQLite and PostgreSQL alike (migration 0009). */
export class SqlChatStore implements ChatStore {
  private readonly knex: Knex;

  constructor(db: Database) {
    this.knex = db.knex;
  }

  async createChat(chat: ChatRecord): Promise<void> {
    await this.knex('chats').insert({
      id: chat.id,
      account_id: chat.accountId,
      title: chat.title,
      created_at_ms: chat.createdAtMs,
    });
  }

  async getChat(id: string): Promise<ChatRecord | null> {
    const row = (await this.knex('chats').where({ id }).first()) as ChatRow | undefined;
    return row === undefined ? null : chatOf(row);
  }

  async listChats(accountId: string, limit: number, offset: number): Promise<ChatRecord[]> {
    const rows = (await this.knex('chats')
      .where({ account_id: accountId })
      .orderBy([
        { column: 'created_at_ms', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(limit)
      .offset(offset)) as ChatRow[];
    return rows.map(chatOf);
  }

  /**
   * One transaction: the dialogues get the next sequence numbers of their chat, in order. Two processes adding to
   * one chat at once can pick the same number; the unique order index refuses the second, which tries again.
   */
  async addDialogues(dialogues: DialogueRecord[], attempts = 3): Promise<void> {
    try {
      await this.append(dialogues);
    } catch (err) {
      if (attempts <= 1 || !isUniqueViolation(err)) throw err;
      await this.addDialogues(dialogues, attempts - 1);
    }
  }

  private async append(dialogues: DialogueRecord[]): Promise<void> {
    await this.knex.transaction(async (trx) => {
      for (const d of dialogues) {
        const last = (await trx('chat_dialogues').where({ chat_id: d.chatId }).max({ seq: 'seq' }).first()) as
          | { seq: number | bigint | null }
          | undefined;
        await trx('chat_dialogues').insert({
          id: d.id,
          chat_id: d.chatId,
          seq: Number(last?.seq ?? 0) + 1,
          role: d.role,
          type: d.type,
          content: d.content,
          model: d.model,
          job_id: d.jobId,
          image: d.image === null ? null : JSON.stringify(d.image),
          created_at_ms: d.createdAtMs,
        });
      }
    });
  }

  async listDialogues(chatId: string): Promise<DialogueRecord[]> {
    const rows = (await this.knex('chat_dialogues').where({ chat_id: chatId }).orderBy('seq')) as DialogueRow[];
    return rows.map(dialogueOf);
  }

  async resolvePlaceholder(
    chatId: string,
    jobId: string,
    outcome: Parameters<ChatStore['resolvePlaceholder']>[2],
  ): Promise<boolean> {
    const values =
      outcome.type === 'image'
        ? { type: 'image', image: JSON.stringify(outcome.image) }
        : { type: 'image_failed', content: outcome.content };
    const changed = await this.knex('chat_dialogues')
      .where({ chat_id: chatId, job_id: jobId, type: 'image_pending' })
      .update(values);
    return changed > 0;
  }
}

/** PostgreSQL's unique_violation, or SQLite's constraint failure on a unique index. */
function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}
