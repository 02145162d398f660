import crashWithoutRelease from './crash-without-release.json';
import existsThenSetRace from './exists-then-set-race.json';
import pausePastExpiry from './pause-past-expiry.json';
import releaseByPlainDel from './release-by-plain-del.json';

/**
 * The built-in scenarios, as written (before defaults), by name. Each file's
 * `name` equals its key here; a test keeps it so.
 */
export const BUILTIN_SCENARIOS: Readonly<Record<string, unknown>> = {
  'pause-past-expiry': pausePastExpiry,
  'crash-without-release': crashWithoutRelease,
  'exists-then-set-race': existsThenSetRace,
  'release-by-plain-del': releaseByPlainDel,
};

export const BUILTIN_NAMES: readonly string[] = Object.keys(BUILTIN_SCENARIOS);
