/**
 * A scenario's summary names its fixes as settings in parentheses, written
 * for the command line ("(--set store.clock=server)") or bare
 * ("(store.restartDelayMs=11000)"). The lab shows each as a button that
 * runs the fix, so the text stays the scenario's and nobody reads a flag.
 */
export type SummaryPart = string | { readonly path: string; readonly value: string };

const FIX = /\((?:--set )?([A-Za-z][\w.[\]-]*)=([^\s)]+)\)/g;

export function summaryParts(text: string): SummaryPart[] {
  const out: SummaryPart[] = [];
  let last = 0;
  for (const m of text.matchAll(FIX)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    out.push({ path: m[1]!, value: m[2]! });
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}
