import { describe, expect, it } from 'vitest';
import { laneNames } from '../../web/timeline/lane-names.js';

/* The timeline's gutter names each lane and where it runs, once. */

describe("a lane's name in the timeline's gutter", () => {
  it('says where a client runs on a line of its own', () => {
    expect(laneNames({ id: 'client-A', kind: 'client', name: 'A', machine: 'app1' })).toEqual({ name: 'A', where: 'on app1', full: 'A on app1' });
  });

  it("gives a store's machine after its name", () => {
    expect(laneNames({ id: 'store-redis', kind: 'store', name: 'redis', machine: 'db' }).full).toBe('redis @db');
  });

  it("does not repeat the machine a store of one machine's kernel is named after", () => {
    expect(laneNames({ id: 'store-flock@app1', kind: 'store', name: 'flock@app1', machine: 'app1' }).full).toBe('flock@app1');
    expect(laneNames({ id: 'store-flock@app2', kind: 'store', name: 'flock@app2', machine: 'app1' }).full).toBe('flock@app2 @app1');
  });

  it('calls the resource the resource, at its machine', () => {
    expect(laneNames({ id: 'resource', kind: 'resource', name: 'db-resource', machine: 'db' }).full).toBe('resource @db');
  });
});
