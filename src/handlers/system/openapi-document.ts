import { stringify } from 'yaml';
import type { operations } from '../../../generated/openapi.js';
import type { Handler } from '../../http/operation-types.js';

type OpenApiDocument = operations['getOpenapiJson']['responses'][200]['content']['application/json'];

/**
 * DESIGN.md 12: the contract itself, as JSON and as YAML: the document the service was built with and validates
 * every request against (deps.contract, read from generated/openapi.bundled.yaml), `servers` as written.
 */
export const getOpenapiJson: Handler<'getOpenapiJson'> = ({ deps }) => ({
  status: 200,
  body: deps.contract as unknown as OpenApiDocument,
});

/** Written once per contract: half a megabyte of YAML is not worth writing again for each request. */
const asYaml = new WeakMap<object, string>();

export const getOpenapiYaml: Handler<'getOpenapiYaml'> = ({ deps }) => {
  let yaml = asYaml.get(deps.contract);
  if (yaml === undefined) {
    // No anchors: the document is a tree, and a reader should find each schema written out where it is used.
    yaml = stringify(deps.contract, { aliasDuplicateObjects: false, lineWidth: 0 });
    asYaml.set(deps.contract, yaml);
  }
  return { status: 200, contentType: 'application/yaml', body: yaml };
};
