import { createHash } from 'node:crypto';
import { useSha256, type Sha256 } from '../trace/hash.js';

/*
 * Node's own sha256 for run hashes and content hashes: imported for its
 * effect by the Node entry points (the package's, the command's,
 * locklab/testing's, the bench's; a sweep's workers count and do not hash).
 * On the bench's workload the sha256 of an event's line takes about 0.5 µs,
 * where the portable implementation takes about 4.4 µs;
 * test/hash-engines.test.ts holds the digests to be the same.
 */

/** A sha256 from node:crypto. */
export function nodeSha256(): Sha256 {
  const h = createHash('sha256');
  return {
    update: (text) => void h.update(text, 'utf8'),
    digestHex: () => h.digest('hex'),
  };
}

useSha256(nodeSha256);
