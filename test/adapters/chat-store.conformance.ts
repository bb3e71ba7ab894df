/** The one behavioural contract of the chat-store port (src/adapters/chat-store), run against every implementation. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatRecord, ChatStore, DialogueRecord } from '../../src/adapters/chat-store/index.js';
import { newId } from '../../src/lib/ids.js';

export interface ChatStoreUnderTest {
  store: ChatStore;
  cleanup(): Promise<void>;
}

const T0 = 1_750_000_000_000;

function chat(overrides: Partial<ChatRecord> = {}): ChatRecord {
  return { id: newId('chat'), accountId: newId('acc'), title: 'A chat', createdAtMs: T0, ...overrides };
}

function dialogue(chatId: string, overrides: Partial<DialogueRecord> = {}): DialogueRecord {
  return {
    id: newId('dlg'),
    chatId,
    role: 'user',
    type: 'text',
    content: 'hello',
    model: 'gpt-5-mini',
    jobId: null,
    image: null,
    createdAtMs: T0,
    ...overrides,
  };
}

export function chatStoreConformance(name: string, make: () => Promise<ChatStoreUnderTest>): void {
  describe(`ChatStore conformance: ${name}`, () => {
    let subject: ChatStoreUnderTest | undefined;
    const store = (): ChatStore => subject!.store;
    beforeAll(async () => {
      subject = await make();
    });
    afterAll(async () => {
      await subject?.cleanup();
    });

    it('stores a chat and answers it; null for an unknown id', async () => {
      const record = chat();
      await store().createChat(record);
      expect(await store().getChat(record.id)).toEqual(record);
      expect(await store().getChat(newId('chat'))).toBeNull();
    });

    it('lists an account’s chats newest first, paged, and no other account’s', async () => {
      const accountId = newId('acc');
      const chats = [0, 1, 2].map((i) => chat({ accountId, createdAtMs: T0 + i, title: `chat ${i}` }));
      for (const c of chats) await store().createChat(c);
      await store().createChat(chat());
      expect(await store().listChats(accountId, 10, 0)).toEqual([chats[2], chats[1], chats[0]]);
      expect(await store().listChats(accountId, 1, 1)).toEqual([chats[1]]);
    });

    it('keeps dialogues in the order they were added, across calls, and apart per chat', async () => {
      const a = chat();
      const b = chat();
      await store().createChat(a);
      await store().createChat(b);
      const first = [dialogue(a.id, { content: 'one' }), dialogue(a.id, { role: 'assistant', content: 'two' })];
      const other = dialogue(b.id, { content: 'elsewhere' });
      const last = dialogue(a.id, { type: 'image_pending', content: null, jobId: newId('job'), model: 'imgG-2' });
      await store().addDialogues(first);
      await store().addDialogues([other]);
      await store().addDialogues([last]);
      expect(await store().listDialogues(a.id)).toEqual([...first, last]);
      expect(await store().listDialogues(b.id)).toEqual([other]);
    });

    it('resolves a placeholder once: into the image, or into a failure; never a second time', async () => {
      const c = chat();
      await store().createChat(c);
      const [done, failed] = [newId('job'), newId('job')];
      await store().addDialogues([
        dialogue(c.id, { type: 'image_pending', jobId: done, content: null }),
        dialogue(c.id, { type: 'image_pending', jobId: failed, content: null }),
      ]);
      const image = { url: 'https://gw.example/v1/files/x.png?expires=1&signature=ab', mime_type: 'image/png' };
      expect(await store().resolvePlaceholder(c.id, done, { type: 'image', image })).toBe(true);
      expect(await store().resolvePlaceholder(c.id, done, { type: 'image_failed', content: 'late' })).toBe(false);
      expect(await store().resolvePlaceholder(c.id, failed, { type: 'image_failed', content: 'refused' })).toBe(true);
      expect(await store().resolvePlaceholder(newId('chat'), done, { type: 'image', image })).toBe(false);
      expect(
        (await store().listDialogues(c.id)).map(({ type, image: i, content }) => ({ type, image: i, content })),
      ).toEqual([
        { type: 'image', image, content: null },
        { type: 'image_failed', image: null, content: 'refused' },
      ]);
    });
  });
}
