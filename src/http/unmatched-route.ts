import type { RequestHandler } from 'express';
import { ApiError } from '../errors/api-error.js';

export interface RouteShape {
  pattern: RegExp;
  methods: string[];
}

/** `/v1/llm/api-keys/{key_id}` → a regular expression matching one path segment per parameter. */
export function routeShape(openApiPath: string, methods: string[]): RouteShape {
  const escaped = openApiPath
    .split(/\{[^}]+\}/)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^/]+');
  // Case-insensitive like express's own routing, so /V1/… gets the same 404/405 verdict.
  return { pattern: new RegExp(`^${escaped}/?$`, 'i'), methods: methods.map((m) => m.toUpperCase()) };
}

/** Reached only when no operation matched: 405 with `Allow` if the path exists, else 404 `route_not_found`. */
export function unmatchedRoute(routes: RouteShape[]): RequestHandler {
  return (req, _res, next) => {
    const route = routes.find((r) => r.pattern.test(req.path));
    if (route === undefined) return next(new ApiError('route_not_found', `No operation at ${req.method} ${req.path}`));
    const allow = route.methods.includes('GET') ? [...route.methods, 'HEAD'] : route.methods;
    next(
      new ApiError('method_not_allowed', `${req.method} is not allowed on ${req.path}`, {
        headers: { Allow: allow.join(', ') },
      }),
    );
  };
}
