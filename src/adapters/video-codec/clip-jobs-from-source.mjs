// Worker threads on Node 20 do not inherit tsx's loader: when the service runs from source (make test, tsx), the
// pool loads this file, which imports the TypeScript jobs through tsx. A build runs the compiled clip-jobs.js.
import { tsImport } from 'tsx/esm/api';

const jobs = await tsImport('./clip-jobs.ts', import.meta.url);

export const { renderClip } = jobs;
