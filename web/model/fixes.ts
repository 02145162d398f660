/**
 * A scenario's summary names its fixes as settings in parentheses, written
 * for the command line ("(--set store.clock=server)", quoted when the value
 * is JSON: "(--set 'clients.A.steps[0].finally=[…]')") or bare
 * ("(store.restartDelayMs=11000)"). The lab shows each as a button that
 * runs the fix, so the text stays the scenario's and nobody reads a flag.
 * A setting whose value the summary leaves open ("store.servers=...") is
 * named in words instead: there is nothing to run.
 */
export type SummaryPart = string | { readonly path: string; readonly value: string };

const PATH = String.raw`[A-Za-z][\w.[\]-]*`;
const FIX = new RegExp(String.raw`\((?:--set )?(?:'(${PATH})=([^']+)'|(${PATH})=([^\s)]+))\)`, 'g');

export function summaryParts(text: string): SummaryPart[] {
  const out: SummaryPart[] = [];
  let last = 0;
  const push = (s: string) => {
    const prev = out[out.length - 1];
    if (typeof prev === 'string') out[out.length - 1] = prev + s;
    else out.push(s);
  };
  for (const m of text.matchAll(FIX)) {
    if (m.index > last) push(text.slice(last, m.index));
    const path = m[1] ?? m[3]!;
    const value = m[2] ?? m[4]!;
    if (/^\.{2,}$|^…$/.test(value)) push(`(set ${path} in the Sandbox)`);
    else out.push({ path, value });
    last = m.index + m[0].length;
  }
  if (last < text.length) push(text.slice(last));
  return out;
}
