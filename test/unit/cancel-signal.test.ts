/** Canceller (src/lib/cancel-signal.ts): the per-request CancelSignal behaves as an AbortSignal with `{ once: true }` listeners. */
import { describe, expect, it } from 'vitest';
import { Canceller } from '../../src/lib/cancel-signal.js';

describe('Canceller', () => {
  it('abort sets aborted and reason and runs each listener once, in the order added', () => {
    const cancel = new Canceller();
    const calls: string[] = [];
    cancel.addEventListener('abort', () => calls.push('first'));
    cancel.addEventListener('abort', () => calls.push('second'));
    const reason = new Error('client left');
    cancel.abort(reason);
    cancel.abort(new Error('again'));
    expect(cancel.aborted).toBe(true);
    expect(cancel.reason).toBe(reason);
    expect(calls).toEqual(['first', 'second']);
  });

  it('a removed listener never runs, the others still do', () => {
    const cancel = new Canceller();
    const calls: string[] = [];
    const removed = () => calls.push('removed');
    cancel.addEventListener('abort', removed);
    cancel.addEventListener('abort', () => calls.push('kept'));
    cancel.removeEventListener('abort', removed);
    cancel.abort(new Error('x'));
    expect(calls).toEqual(['kept']);
  });

  it('a listener added after the abort never runs (read `aborted` first, as with AbortSignal)', () => {
    const cancel = new Canceller();
    cancel.abort(new Error('x'));
    let ran = false;
    cancel.addEventListener('abort', () => (ran = true));
    expect(ran).toBe(false);
  });
});
