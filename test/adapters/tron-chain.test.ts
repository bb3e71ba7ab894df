import { JavaTronHttpChain } from '../../src/adapters/tron-chain/java-tron-http.js';
import { MemoryTronChain } from '../../src/adapters/tron-chain/memory.js';
import { startFakeJavaTron } from '../fakes/java-tron.js';
import { USDT } from '../fakes/java-tron-wallet.js';
import { tronChainConformance } from './tron-chain.conformance.js';

const CALL_FEE_SUN = 4_458_500n;

tronChainConformance('memory', async () => {
  const chain = new MemoryTronChain({ token: USDT, callFeeSun: CALL_FEE_SUN });
  return { chain, control: chain, cleanup: async () => {} };
});

tronChainConformance('java-tron HTTP against the fake node', async () => {
  const fake = await startFakeJavaTron({ token: USDT, callFeeSun: CALL_FEE_SUN });
  return { chain: new JavaTronHttpChain({ nodeUrl: fake.url }), control: fake.chain, cleanup: fake.close };
});
