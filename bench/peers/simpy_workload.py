"""The bench workload (bench/workload.ts) written for SimPy 3, the peer Locklab
is measured against: 50 clients contend for one key on a lease store with
expiry on the server and a token-checked release; latency uniform 0.5-1.5 ms
each way; a refused client polls again after 100 +/- 10 ms; work is
exponential with mean 20 ms; 1 % of acquisitions are followed by a pause
uniform in 0-2 s. Prints one JSON line: cycles, seconds, cycles per second.

Usage: python3 simpy_workload.py CYCLES
"""
import json
import random
import sys
import time

import simpy

CLIENTS = 50
TTL = 1.0


class LeaseStore:
    def __init__(self, env):
        self.env = env
        self.owner = None
        self.expires = 0.0

    def set_nx(self, owner):
        now = self.env.now
        if self.owner is not None and self.expires <= now:
            self.owner = None
        if self.owner is None:
            self.owner = owner
            self.expires = now + TTL
            return True
        return False

    def release(self, owner):
        if self.owner == owner and self.expires > self.env.now:
            self.owner = None
            return True
        return False


def latency(rng):
    return rng.uniform(0.0005, 0.0015)


def client(env, name, store, rng, iterations, counter):
    for i in range(iterations):
        owner = (name, i)
        while True:
            yield env.timeout(latency(rng))
            ok = store.set_nx(owner)
            yield env.timeout(latency(rng))
            if ok:
                break
            yield env.timeout(0.1 + rng.uniform(-0.01, 0.01))
        counter[0] += 1
        if rng.random() < 0.01:
            yield env.timeout(rng.uniform(0, 2.0))
        yield env.timeout(rng.expovariate(1 / 0.020))
        yield env.timeout(latency(rng))
        store.release(owner)
        yield env.timeout(latency(rng))


def main():
    cycles = int(sys.argv[1])
    iterations = -(-cycles // CLIENTS)
    env = simpy.Environment()
    store = LeaseStore(env)
    counter = [0]
    for c in range(CLIENTS):
        env.process(client(env, c, store, random.Random(c), iterations, counter))
    t0 = time.perf_counter()
    env.run()
    seconds = time.perf_counter() - t0
    print(json.dumps({"cycles": counter[0], "seconds": seconds, "cyclesPerSec": counter[0] / seconds}))


if __name__ == "__main__":
    main()
