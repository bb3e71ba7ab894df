/** The tokenizer conformance suite on the in-process twin and on the worker-thread pool the service uses. */
import { InProcessTokenWork, WorkerPoolTokenWork } from '../../src/adapters/tokenizer/index.js';
import { tokenWorkConformance } from './token-work.conformance.js';

tokenWorkConformance('in process', () => new InProcessTokenWork());
tokenWorkConformance('worker pool', () => new WorkerPoolTokenWork(2));
