/**
 * One fuzz worker thread: regenerates case (family, seed, index) and runs it through the oracle;
 * answers { outcome } or { broken }. The pool terminates it when a case passes its deadline.
 */
import { parentPort } from 'node:worker_threads';
import { loadSeeds, makeCase, runCase, Broken, type Family } from './families.ts';

parentPort!.on('message', (m: { family: Family; seed: number; index: number }) => {
  let reply: { outcome?: string; broken?: string };
  try {
    reply = { outcome: runCase(makeCase(m.family, m.seed, m.index)) };
  } catch (e) {
    reply = { broken: e instanceof Broken ? e.message : `harness: ${(e as Error)?.message ?? String(e)}` };
  }
  parentPort!.postMessage(reply);
});
// The seeds (fixtures and the links made from them) are read before the first deadline starts.
loadSeeds();
parentPort!.postMessage({ ready: true });
