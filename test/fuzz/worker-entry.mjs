// Entry point of a fuzz worker thread: loads the TypeScript worker through tsx, as sim/cli/bin.mjs does for the CLI.
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
