import type { OpenAPIV3 } from 'express-openapi-validator/dist/framework/types.js';

type Json = unknown;

/** Every `#/components/<kind>/<name>` reachable from `root`, following components into components. */
function reachableComponents(root: Json, components: Record<string, Record<string, Json>>): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  const pending: Json[] = [root];
  while (pending.length > 0) {
    const node = pending.pop();
    if (Array.isArray(node)) {
      pending.push(...node);
      continue;
    }
    if (node === null || typeof node !== 'object') continue;
    for (const [key, value] of Object.entries(node)) {
      const match = key === '$ref' && typeof value === 'string' ? /^#\/components\/([^/]+)\/(.+)$/.exec(value) : null;
      if (match === null) {
        pending.push(value);
        continue;
      }
      const [, kind = '', name = ''] = match;
      const names = found.get(kind) ?? new Set<string>();
      found.set(kind, names);
      if (!names.has(name)) {
        names.add(name);
        pending.push(components[kind]?.[name]);
      }
    }
  }
  return found;
}

/**
 * The contract cut down to one path and the components it uses. Each path gets its own validator (see
 * bind-operations.ts); handing each the whole contract would parse and compile every schema once per path.
 *
 * The slice shares its objects with the contract: express-openapi-validator deep-copies the document it is given
 * before touching it (lodash cloneDeep, which keeps strings shared). A structured clone here copied every string
 * too, so each of a hundred validators held its own copy of every description it reaches (about 5 MB in all).
 */
export function contractForPath(spec: OpenAPIV3.DocumentV3_1, path: string): OpenAPIV3.DocumentV3_1 {
  const item = spec.paths?.[path];
  const all = (spec.components ?? {}) as Record<string, Record<string, Json>>;
  const components: Record<string, Record<string, Json>> = { securitySchemes: all.securitySchemes ?? {} };
  for (const [kind, names] of reachableComponents(item, all)) {
    components[kind] = Object.fromEntries([...names].map((name) => [name, all[kind]?.[name]]));
  }
  return { ...spec, paths: { [path]: item }, components } as OpenAPIV3.DocumentV3_1;
}
