import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { readUpTo } from '../../src/lib/read-up-to.js';

const bytesOf = (...parts: string[]) =>
  Readable.from(
    parts.map((part) => Buffer.from(part)),
    { objectMode: false },
  );

/** A stream that gives `first`, then breaks: with `error`, or closed without one. */
function breaking(first: string, error?: Error): Readable {
  const stream = new Readable({ read() {} });
  stream.push(Buffer.from(first));
  setTimeout(() => stream.destroy(error), 5);
  return stream;
}

describe('readUpTo', () => {
  it('reads a stream to its end when it stays within the limit', async () => {
    expect(await readUpTo(bytesOf('abc', 'def'), 6)).toEqual({ bytes: Buffer.from('abcdef'), cut: false });
  });

  it('stops at the chunk that passes the limit and destroys the rest of the stream', async () => {
    const body = bytesOf('abc', 'def', 'ghi');
    const { bytes, cut } = await readUpTo(body, 5);
    expect({ text: bytes.toString(), cut }).toEqual({ text: 'abcdef', cut: true });
    expect(body.destroyed).toBe(true);
  });

  it('throws when the stream breaks, or gives what had arrived with keepOnBreak', async () => {
    await expect(readUpTo(breaking('abc', new Error('reset')), 100)).rejects.toThrow('reset');
    expect(await readUpTo(breaking('abc', new Error('reset')), 100, true)).toEqual({
      bytes: Buffer.from('abc'),
      cut: false,
    });
  });

  it('throws for a stream closed before its end without an error, and for one broken before the call', async () => {
    await expect(readUpTo(breaking('abc'), 100)).rejects.toThrow('closed before its end');
    const broken = bytesOf('abc');
    broken.on('error', () => {});
    broken.destroy(new Error('gone'));
    await expect(readUpTo(broken, 100)).rejects.toThrow('gone');
  });

  it("cuts a real HTTP body past the limit without an unhandled 'error' from the client", async () => {
    const server = createServer((_req, res) => res.end(Buffer.alloc(256 * 1024, 'x')));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const { body } = await request(`http://127.0.0.1:${port}/`);
      const { bytes, cut } = await readUpTo(body, 1024);
      expect(cut).toBe(true);
      expect(bytes.length).toBeGreaterThan(1024);
      expect(bytes.length).toBeLessThan(256 * 1024);
      await new Promise((resolve) => setTimeout(resolve, 20)); // the client's error for the destroyed body, if any
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('reads any other async iterable of bytes the same way', async () => {
    async function* parts() {
      yield Buffer.from('abc');
      yield Buffer.from('def');
      yield Buffer.from('ghi');
    }
    expect(await readUpTo(parts(), 100)).toEqual({ bytes: Buffer.from('abcdefghi'), cut: false });
    expect(await readUpTo(parts(), 4)).toEqual({ bytes: Buffer.from('abcdef'), cut: true });
  });
});
