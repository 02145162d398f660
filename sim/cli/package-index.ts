/**
 * The package's entry (`locklab`), for Node: the library itself
 * (sim/index.ts), with Node's own sha256 installed first.
 */
import './node-hash.js';

export * from '../index.js';
