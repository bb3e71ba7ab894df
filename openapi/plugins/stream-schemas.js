/**
 * OpenAPI 3.1 cannot describe the events of a `text/event-stream` (3.2 adds `itemSchema`), so the stream's media
 * types name the JSON of their `data:` lines in two extensions. Declaring them as schemas lets `redocly bundle` keep
 * them as `$ref`s to components/schemas (instead of inlining a copy), and `redocly lint` check them as schemas.
 */
export default function streamSchemas() {
  return {
    id: 'stream-schemas',
    typeExtension: {
      oas3(types) {
        return {
          ...types,
          MediaType: {
            ...types.MediaType,
            properties: { ...types.MediaType.properties, 'x-event-data': 'Schema', 'x-error-frame': 'Schema' },
          },
        };
      },
    },
  };
}
