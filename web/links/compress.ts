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
  let inflated: Uint8Array;
  try {
    inflated = await pipe(raw, new DecompressionStream('deflate-raw'));
  } catch {
    throw new Error('is damaged: it does not inflate (was the link cut short?)');
  }
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(inflated)) as unknown;
  } catch {
    throw new Error('is damaged: it inflates, but not to JSON');
  }
}
