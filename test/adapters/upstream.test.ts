/**
 * The upstream provider conformance suite (./upstream.conformance.ts) on the sandbox and on the OpenAI-compatible
 * provider against the local fake upstream (test/fixtures/fake-upstream.ts). What only one of them does is tested
 * beside it: ./upstream-sandbox.test.ts and ./upstream-http.test.ts.
 */
import { InProcessTokenWork } from '../../src/adapters/tokenizer/in-process.js';
import { OpenAiCompatibleProvider } from '../../src/adapters/upstream/openai-compatible.js';
import { SandboxProvider } from '../../src/adapters/upstream/sandbox.js';
import { TokenCounter } from '../../src/domain/text/token-counter.js';
import { createUpstreamAgent } from '../../src/lib/outbound-http.js';
import { startFakeUpstream } from '../fixtures/fake-upstream.js';
import { upstreamConformance } from './upstream.conformance.js';

const tokens = new TokenCounter(new InProcessTokenWork());

upstreamConformance('sandbox', async () => {
  const provider = new SandboxProvider({ embeddingDimensions: () => 64, tokens });
  return {
    provider,
    nativeDimensions: 64,
    failNext: (fault) => provider.failNext(fault),
    cleanup: async () => {},
  };
});

upstreamConformance('OpenAI-compatible, against the fake upstream', async () => {
  const fake = await startFakeUpstream();
  // One connection: a stream that does not let go of its socket would stall the next call.
  const dispatcher = createUpstreamAgent({ connectionsPerOrigin: 1 });
  const provider = new OpenAiCompatibleProvider({ name: 'fake-openai', baseUrl: `${fake.baseUrl}/v1`, dispatcher });
  return {
    provider,
    nativeDimensions: 8,
    failNext: (fault) => {
      const index = fake.requests.length;
      fake.setBehaviour((_, i) => (i === index ? fault : 'ok'));
    },
    cleanup: async () => {
      await dispatcher.close();
      await fake.close();
    },
  };
});
