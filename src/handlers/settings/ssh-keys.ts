import type { SshKeyRecord } from '../../adapters/ssh-key-store/index.js';
import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';
import { requirePrincipal } from '../require-principal.js';

const keyView = (k: SshKeyRecord) => ({
  key_id: k.id,
  name: k.name,
  public_key: k.publicKey,
  fingerprint: k.fingerprint,
  created_at: Math.floor(k.createdAtMs / 1000),
});

export const listSshKeys: Handler<'listSshKeys'> = async ({ deps, principal }) => ({
  status: 200,
  body: nativeOk({ keys: (await deps.market.sshKeys.list(requirePrincipal(principal))).map(keyView) }),
});

export const addSshKey: Handler<'addSshKey'> = async ({ deps, principal, body }) => ({
  status: 201,
  body: nativeOk(keyView(await deps.market.sshKeys.add(requirePrincipal(principal), body!.public_key, body!.name))),
});

export const deleteSshKey: Handler<'deleteSshKey'> = async ({ deps, principal, params }) => {
  await deps.market.sshKeys.remove(requirePrincipal(principal), params.key_id);
  return { status: 200, body: nativeOk({ deleted: true as const }) };
};
