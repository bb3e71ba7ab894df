/** Reads the bundled contract, so tests enumerate operations and check payloads against the source of truth. */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { loadContract } from '../../src/composition/index.js';

export interface ContractOperation {
  operationId: string;
  method: string;
  path: string;
  /** The path with each parameter filled with a sample value. */
  samplePath: string;
  envelope: string;
  security: Record<string, string[]>[];
}

export function contractOperations(): ContractOperation[] {
  const contract = loadContract();
  const operations: ContractOperation[] = [];
  for (const [path, item] of Object.entries(contract.paths ?? {})) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch'] as const) {
      const op = (item as Record<string, any>)[method];
      if (op === undefined) continue;
      operations.push({
        operationId: op.operationId,
        method: method.toUpperCase(),
        path,
        samplePath: path.replace(/\{[^}]+\}/g, 'sample_1'),
        envelope: op['x-envelope'],
        security: op.security ?? contract.security ?? [],
      });
    }
  }
  return operations;
}

/** Operations that require an API key: a key scheme among their alternatives, and no anonymous one. */
export function protectedOperations(): ContractOperation[] {
  return contractOperations().filter(
    (op) =>
      op.security.length > 0 &&
      op.security.every((alt) => Object.keys(alt).length > 0) &&
      op.security.some((alt) => 'BearerAuth' in alt || 'ApiKeyHeader' in alt),
  );
}

/**
 * Checks values against one of the contract's component schemas, for payloads no response validator sees (the
 * events inside a stream): the findings, or null when the value conforms.
 */
export function componentChecker(name: string): (value: unknown) => string | null {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ $id: 'contract', components: loadContract().components });
  const validate = ajv.compile({ $ref: `contract#/components/schemas/${name}` });
  return (value) => (validate(value) ? null : ajv.errorsText(validate.errors));
}
