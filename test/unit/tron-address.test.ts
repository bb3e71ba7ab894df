/** Address codec and derivation against the vectors of research/payments.md 4.1 (sources in src/lib/tron/README.md). */
import { hexToBytes } from '@noble/hashes/utils.js';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { describe, expect, it } from 'vitest';
import { addressFromHex, addressToHex, decodeAddress, isTronAddress } from '../../src/lib/tron/address.js';
import { DEPOSIT_ACCOUNT_PATH, depositAddress, parseDepositXpub } from '../../src/lib/tron/deposit-address.js';
import { addressFromPrivateKey } from '../../src/lib/tron/key-address.js';

const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const ABANDON_KEYS = [
  ['b5a4cea271ff424d7c31dc12a3e43e401df7a40d7412a15750f3f0b6b5449a28', 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH'],
  ['edb728e259afca2ddcc428459e7681b8414668649aedbc8d25c0872da219b2e6', 'TSeJkUh4Qv67VNFwY8LaAxERygNdy6NQZK'],
  ['0e5684898be2d272d54eb2be3fd41a12f720db6358cee02c2d23043eed4bf7a2', 'TYJPRrdB5APNeRs4R7fYZSwW3TcrTKw2gx'],
] as const;
const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const USDT_HEX = '41a614f803b6fd780986a42c78ec9c7f77e6ded13c';

const accountXpub = (mnemonic: string): string =>
  HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic)).derive(DEPOSIT_ACCOUNT_PATH).publicExtendedKey;

describe('TRON address codec', () => {
  it('converts between 41-hex and base58check both ways (USDT contract, abandon/0)', () => {
    expect(addressFromHex(USDT_HEX)).toBe(USDT);
    expect(addressToHex(USDT)).toBe(USDT_HEX);
    expect(addressFromHex('41C8599111F29C1E1E061265B4AF93EA1F274AD78A')).toBe('TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH');
    expect(addressToHex('TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH')).toBe('41c8599111f29c1e1e061265b4af93ea1f274ad78a');
  });

  it('rejects a changed character, hex and EVM forms, a wrong prefix or length, and non-canonical text', () => {
    expect(isTronAddress(USDT)).toBe(true);
    expect(isTronAddress(USDT.replace('KQx', 'Kqx'))).toBe(false); // one letter's case
    expect(isTronAddress(USDT_HEX)).toBe(false);
    expect(isTronAddress('0xa614f803b6fd780986a42c78ec9c7f77e6ded13c')).toBe(false);
    expect(isTronAddress(` ${USDT}`)).toBe(false);
    expect(isTronAddress('')).toBe(false);
    // A valid base58check of a Bitcoin address: right checksum, wrong length and prefix.
    expect(isTronAddress('1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2')).toBe(false);
    expect(addressFromHex('42a614f803b6fd780986a42c78ec9c7f77e6ded13c')).toBeNull();
    expect(addressFromHex('41a614f803b6fd780986a42c78ec9c7f77e6ded1')).toBeNull();
    expect(addressToHex('T-not-an-address')).toBeNull();
    expect(decodeAddress(USDT)?.length).toBe(21);
  });

  it('derives the address of a private key (trezor-firmware vector and the abandon keys)', () => {
    const trezor = '8d596057e510b14cbb9bf24f88803a6d6dbd138dd303a62b175b9e6cc0f3f941';
    expect(addressFromPrivateKey(hexToBytes(trezor))).toBe('TY72iA3SBtrds3QLYsS7LwYfkzXwAXCRWT');
    for (const [key, address] of ABANDON_KEYS) expect(addressFromPrivateKey(hexToBytes(key))).toBe(address);
  });
});

describe("deposit addresses at m/44'/195'/0'/0/i", () => {
  it('derives the published addresses from the seed by the full path (private keys included)', () => {
    const root = HDKey.fromMasterSeed(mnemonicToSeedSync(ABANDON));
    ABANDON_KEYS.forEach(([key, address], i) => {
      const child = root.derive(`m/44'/195'/0'/0/${i}`);
      expect(Buffer.from(child.privateKey ?? []).toString('hex')).toBe(key);
      expect(addressFromPrivateKey(child.privateKey ?? new Uint8Array())).toBe(address);
    });
  });

  it('derives the same addresses from the account xpub alone (watch-only)', () => {
    const account = parseDepositXpub(accountXpub(ABANDON));
    ABANDON_KEYS.forEach(([, address], i) => expect(depositAddress(account, i)).toBe(address));
    const bean = 'bean stone deal ship become wash net shift spoil embark luggage sand';
    expect(depositAddress(parseDepositXpub(accountXpub(bean)), 0)).toBe('TSiXa4Yv9kwqZaw71fvMjLd5QcrQRzJdhc');
  });

  it('refuses an xprv, an xpub of another level, a hardened or negative index, and a non-integer one', () => {
    const root = HDKey.fromMasterSeed(mnemonicToSeedSync(ABANDON)).derive(DEPOSIT_ACCOUNT_PATH);
    expect(() => parseDepositXpub(root.privateExtendedKey)).toThrow(/xpub/);
    expect(() => parseDepositXpub(root.deriveChild(0).publicExtendedKey)).toThrow(/depth 3/);
    expect(() => parseDepositXpub('xpub-not-base58')).toThrow();
    const account = parseDepositXpub(root.publicExtendedKey);
    expect(() => depositAddress(account, 0x80000000)).toThrow(RangeError);
    expect(() => depositAddress(account, -1)).toThrow(RangeError);
    expect(() => depositAddress(account, 1.5)).toThrow(RangeError);
  });
});
