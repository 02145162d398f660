import { InputError } from '../../sim/errors.js';
import { parseJson } from '../../sim/json.js';
import { LIMITS, limitText } from '../../sim/scenario/limits.js';

/*
 * Scenarios that are not built in travel in links as deflated JSON in
 * base64url. CompressionStream is built into browsers and Node 18+, so
 * this adds nothing to the bundle.
 */

function toBase64Url(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i]!);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error('contains characters that base64url does not use');
  const bin = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

async function pipe(bytes: Uint8Array, stream: CompressionStream | DecompressionStream): Promise<Uint8Array> {
  const body = new Blob([bytes as BlobPart]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(body).arrayBuffer());
}

/** Inflates, stopping as soon as the output passes `maxBytes`: a short link must not inflate to gigabytes. */
async function inflate(bytes: Uint8Array, maxBytes: number): Promise<Uint8Array | 'too-large'> {
  const reader = new Blob([bytes as BlobPart]).stream().pipeThrough(new DecompressionStream('deflate-raw')).getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.length;
    if (length > maxBytes) {
      await reader.cancel();
      return 'too-large';
    }
    chunks.push(value);
  }
  const out = new Uint8Array(length);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

export async function packJson(value: unknown): Promise<string> {
  const bytes = new TextEncoder().encode(JSON.stringify(value));
  return toBase64Url(await pipe(bytes, new CompressionStream('deflate-raw')));
}

/** Inverse of packJson; throws an Error saying which step failed. */
export async function unpackJson(text: string): Promise<unknown> {
  let raw: Uint8Array;
  try {
    raw = fromBase64Url(text);
  } catch (err) {
    throw new Error(`is not base64url: ${(err as Error).message}`, { cause: err });
  }
  let inflated: Uint8Array | 'too-large';
  try {
    inflated = await inflate(raw, LIMITS.maxScenarioBytes);
  } catch {
    throw new Error('is damaged: it does not inflate (was the link cut short?)');
  }
  if (inflated === 'too-large') throw new Error(`inflates to more than ${LIMITS.maxScenarioBytes} bytes; ${limitText('maxScenarioBytes')}`);
  let json: string;
  try {
    json = new TextDecoder('utf-8', { fatal: true }).decode(inflated);
  } catch {
    throw new Error('is damaged: it inflates, but not to UTF-8 text');
  }
  // The one JSON reader, so a link's scenario gets the answers a file would.
  try {
    return parseJson(json, 'sc');
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    const first = err.issues[0];
    throw new Error(
      `is damaged: it inflates, but not to a scenario the lab reads: ${first === undefined ? '' : first.path === '' ? first.message : `${first.path}: ${first.message}`}`,
      { cause: err },
    );
  }
}
