import { InputError } from '../../sim/errors.js';

/**
 * What one fuzz case did. `accepted`: the input was taken and everything
 * after it held. `rejected`: it was refused with an InputError (`named`
 * when every issue says where: a JSON path, a line and column, or the limit
 * by name). `crashed`: anything else was thrown, or a property that must
 * hold of an accepted input did not.
 */
export type Outcome = { kind: 'accepted' } | { kind: 'rejected'; named: boolean; message: string } | { kind: 'crashed'; message: string };

/** An issue without a path still says where when it points into the text, names a limit, or is about the whole document. */
const WHERE = /line \d+, column \d+|\(max\w+\)|^expected an object|^the document |^is (UTF-16|not UTF-8)|the file is empty/;

export function rejectionOf(err: InputError): Outcome {
  // An option (`--set`) is itself the place when the whole option is wrong.
  const named = err.issues.length > 0 && err.issues.every((i) => i.path !== '' || err.source.startsWith('--') || WHERE.test(i.message));
  return { kind: 'rejected', named, message: err.message.split('\n')[0]!.slice(0, 300) };
}

/** Runs one case, turning what it throws into its outcome. */
export async function outcomeOf(body: () => void | Promise<void>): Promise<Outcome> {
  try {
    await body();
    return { kind: 'accepted' };
  } catch (err) {
    if (err instanceof InputError) return rejectionOf(err);
    const e = err as Error;
    return {
      kind: 'crashed',
      message: `${e?.name ?? 'Error'}: ${String(e?.message ?? err).slice(0, 500)}\n${String(e?.stack ?? '')
        .split('\n')
        .slice(1, 6)
        .join('\n')}`,
    };
  }
}

/** A property of an accepted input that did not hold; reported as a crash. */
export class Broken extends Error {
  override readonly name = 'Broken';
}

export function must(ok: boolean, what: string): void {
  if (!ok) throw new Broken(what);
}
