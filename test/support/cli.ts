import { main } from '../../sim/cli/main.js';

export interface CliResult {
  code: number;
  out: string;
  err: string;
}

/** Runs the locklab CLI in-process, capturing its output, without colour. */
export async function cli(...argv: string[]): Promise<CliResult> {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (t) => (out += t), err: (t) => (err += t), colour: false });
  return { code, out, err };
}
