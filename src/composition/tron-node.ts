import { JavaTronHttpChain } from '../adapters/tron-chain/java-tron-http.js';

/** The java-tron node named by TRON_NODE_URL (and TRON_API_KEY), as the gateway and the signer configure it. */
export function tronNode(settings: { TRON_NODE_URL: string; TRON_API_KEY?: string | undefined }): JavaTronHttpChain {
  return new JavaTronHttpChain({
    nodeUrl: settings.TRON_NODE_URL,
    ...(settings.TRON_API_KEY === undefined ? {} : { apiKey: settings.TRON_API_KEY }),
  });
}
