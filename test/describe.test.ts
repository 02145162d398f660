import { describe as group, expect, it } from 'vitest';
import { describe, describeBelief, toneOf } from '../sim/trace/describe.js';
import type { TraceEvent } from '../sim/trace/types.js';

const ev = (kind: string, extra: Partial<TraceEvent> = {}): TraceEvent => ({ seq: 0, timeUs: 0, kind, actor: 'A', machine: 'app1', key: 'job', ...extra });

group('event sentences', () => {
  it('names the node a step of a release goes to, and the store command of multi-step protocols', () => {
    expect(describe(ev('release.request', { peer: 'redis', data: { method: 'token-checked' } }))).toBe('releases job on redis (token-checked)');
    expect(describe(ev('release.request', { peer: 'memcached', data: { method: 'token-checked', command: 'cas' } }))).toBe('releases job on memcached (cas)');
    expect(describe(ev('release.request', { peer: 'redis', data: { method: 'plain-del' } }))).toBe('deletes job on redis with a plain DEL');
    expect(describe(ev('refresh.request', { peer: 'A', ttlUs: 10_000_000 }))).toBe('asks A to extend job (ttl 10 s)');
  });

  it('tells a stale write that got through from one fencing stopped', () => {
    expect(describe(ev('write.accepted', { actor: 'resource', owner: 'A:1', fence: 33 }))).toBe('accepts the write from A:1 (token 33)');
    expect(describe(ev('write.rejected', { actor: 'resource', owner: 'A:1', fence: 33, data: { highestFence: 34 } }))).toBe(
      'REJECTS the write from A:1: token 33 < 34',
    );
    expect(toneOf(ev('write.rejected'))).toBe('write-bad');
  });

  it('reads a belief with its token and the lease left by the client clock', () => {
    expect(describeBelief(ev('work.start', { believes: { holds: true, owner: 'A:1', fence: 33, ttlLeftUs: 9_998_000 } }))).toBe('holds A:1 #33, 9.998 s left');
    expect(describeBelief(ev('process.resume', { believes: { holds: true, owner: 'A:1', ttlLeftUs: -6_000_000 } }))).toBe('holds A:1, expired 6 s ago');
    expect(describeBelief(ev('client.start', { believes: { holds: false } }))).toBe('holds nothing');
  });

  it('counts what a store loses or keeps in the singular for one', () => {
    expect(describe(ev('store.down', { actor: 'redis', data: { persistence: 'none', keysLost: 1 } }))).toBe('GOES DOWN (persistence none, 1 key lost)');
    expect(describe(ev('store.up', { actor: 'redis', data: { keysKept: 0 } }))).toBe('is back up with 0 keys');
    expect(describe(ev('session.ended', { actor: 'postgres', peer: 'A', reason: 'connection lost', data: { what: 'connection', locks: 1 } }))).toBe(
      "ENDS A's connection (connection lost), which held 1 lock",
    );
    expect(describe(ev('ttl.monitor', { actor: 'mongodb', data: { deleted: 2 } }))).toBe('TTL monitor pass deletes 2 expired documents');
    expect(describe(ev('lock-files.deleted', { actor: 'systemd', data: { files: 1, dir: '' } }))).toBe(
      'DELETES 1 lock file on app1 (tmp clean-up): their locks now exclude nobody',
    );
  });

  it('falls back to the kind for events it does not know, so newer traces still read', () => {
    expect(describe(ev('quantum.entangled'))).toBe('quantum.entangled');
    expect(toneOf(ev('quantum.entangled'))).toBe('info');
  });
});
