/**
 * The hot wallet's key file (issue 27 item 4; docs/payments.md "Withdrawals"): the signer reads it only when no
 * other user may, and only as 64 hex digits.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readSignerKey } from '../../src/signer/signer-config.js';

const KEY = 'b5a4cea271ff424d7c31dc12a3e43e401df7a40d7412a15750f3f0b6b5449a28';
const dir = mkdtempSync(join(tmpdir(), 'cgw-signer-key-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
/** A key file with exactly this text and mode (set after writing, whatever the umask). */
function keyFile(text: string, mode: number): string {
  const path = join(dir, `key-${++files}`);
  writeFileSync(path, text);
  chmodSync(path, mode);
  return path;
}

describe('readSignerKey', () => {
  it('reads a file only its owner can read: the 32 bytes of its 64 hex digits, a trailing newline allowed', () => {
    expect(Buffer.from(readSignerKey(keyFile(`${KEY}\n`, 0o600))).toString('hex')).toBe(KEY);
    expect(Buffer.from(readSignerKey(keyFile(KEY.toUpperCase(), 0o400))).toString('hex')).toBe(KEY);
  });

  it.each([0o644, 0o640, 0o604, 0o660])('refuses a file of mode %o, before reading the key in it', (mode) => {
    expect(() => readSignerKey(keyFile(KEY, mode))).toThrow(
      /TRON_SIGNER_KEY_FILE: .* readable by other users: chmod 600/,
    );
  });

  it.each([
    ['63 hex digits', KEY.slice(1)],
    ['65 hex digits', `${KEY}0`],
    ['a non-hex digit', `${KEY.slice(1)}g`],
    ['a 0x prefix', `0x${KEY}`],
    ['two keys', `${KEY}\n${KEY}`],
    ['nothing', ''],
  ])('refuses a file holding %s', (_what, text) => {
    expect(() => readSignerKey(keyFile(text, 0o600))).toThrow(
      /TRON_SIGNER_KEY_FILE: must hold the private key as 64 hex/,
    );
  });
});

describe('readSignerKey of a file that is not there', () => {
  it('is a setting error naming TRON_SIGNER_KEY_FILE, not a crash', () => {
    expect(() => readSignerKey(join(dir, 'missing'))).toThrow(/TRON_SIGNER_KEY_FILE: .*missing cannot be read/);
  });
});
