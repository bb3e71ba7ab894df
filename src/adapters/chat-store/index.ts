/**
 * The chat-store port: the caller's chats and their history (SPEC 4.2 chats with image messages; the paths and
 * shapes are ours). A chat is a titled list of dialogues in order; an image message leaves an `image_pending`
 * placeholder that is resolved once, by compare-and-set, into the image or a failure.
 */

export interface ChatRecord {
  id: string;
  accountId: string;
  title: string;
  createdAtMs: number;
}

/** `image_pending`: a placeholder for an image job's result, later `image` or `image_failed`. */
export type DialogueType = 'text' | 'image' | 'image_pending' | 'image_failed';

export interface DialogueRecord {
  id: string;
  chatId: string;
  role: 'user' | 'assistant';
  type: DialogueType;
  /** The text said, or the reason an image failed. */
  content: string | null;
  model: string | null;
  /** The image job of a placeholder (and of the image that resolved it). */
  jobId: string | null;
  image: { url: string; mime_type: string } | null;
  createdAtMs: number;
}

export interface ChatStore {
  /** Stores a new chat; its id is new. */
  createChat(chat: ChatRecord): Promise<void>;
  getChat(id: string): Promise<ChatRecord | null>;
  /** The account's chats, newest first. */
  listChats(accountId: string, limit: number, offset: number): Promise<ChatRecord[]>;
  /** Appends dialogues to a chat, in the order given, after every dialogue it has. */
  addDialogues(dialogues: DialogueRecord[]): Promise<void>;
  /** A chat's dialogues in the order they were added. */
  listDialogues(chatId: string): Promise<DialogueRecord[]>;
  /**
   * Resolves the `image_pending` placeholder of `jobId` in `chatId` into `image` or `image_failed`; false when there
   * is none pending (resolved already, by this process or another).
   */
  resolvePlaceholder(
    chatId: string,
    jobId: string,
    outcome: { type: 'image'; image: { url: string; mime_type: string } } | { type: 'image_failed'; content: string },
  ): Promise<boolean>;
}
