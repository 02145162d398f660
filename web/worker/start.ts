/**
 * Starts the simulation's worker as the page starts: the lab's runs, a
 * lesson's stories and challenges all go to it, and it takes about a third
 * of a second to load on this machine. The entry imports this module before
 * any other, so the worker loads on its own thread while the page's modules
 * are still being evaluated, not when the first run is asked for.
 */
import { sim } from './client.js';

sim().warm();
