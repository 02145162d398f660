/**
 * Starts the simulation's worker as the page starts: the lab's runs, a
 * lesson's stories and challenges all go to it, and it takes about a third
 * of a second to load on this machine. The entry (main.tsx) runs this
 * before it loads the page's own code, so the worker loads on its own thread
 * while the browser is still parsing that code, not when the first run is
 * asked for.
 */
import { sim } from './client.js';

sim().warm();
