/**
 * V8's own test helpers, for tests that guard a hot path's object layout (src/lib/copy-with.ts,
 * src/http/http-server.ts): compiled after `--allow-natives-syntax` is switched on, which only affects code
 * compiled later.
 */
import { setFlagsFromString } from 'node:v8';

setFlagsFromString('--allow-natives-syntax');

/** Whether two objects share one hidden class. */
export const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

/** Whether an object keeps fast properties (false once V8 turned it into a dictionary-mode object). */
export const hasFastProperties = new Function('o', 'return %HasFastProperties(o)') as (o: object) => boolean;
