import combinedUnanimousNodeDown from './combined-unanimous-node-down.json' with { type: 'json' };
import crashWithoutRelease from './crash-without-release.json' with { type: 'json' };
import deployConfigChange from './deploy-config-change.json' with { type: 'json' };
import etcdRevisionFencing from './etcd-revision-fencing.json' with { type: 'json' };
import existsThenSetRace from './exists-then-set-race.json' with { type: 'json' };
import flockAcrossServers from './flock-across-servers.json' with { type: 'json' };
import pausePastExpiry from './pause-past-expiry.json' with { type: 'json' };
import postgresConnectionLoss from './postgres-connection-loss.json' with { type: 'json' };
import redlockClockJump from './redlock-clock-jump.json' with { type: 'json' };
import redlockRestartWithoutDelay from './redlock-restart-without-delay.json' with { type: 'json' };
import releaseByPlainDel from './release-by-plain-del.json' with { type: 'json' };
import semaphoreTwoContainers from './semaphore-two-containers.json' with { type: 'json' };
import memcachedEviction from './memcached-eviction.json' with { type: 'json' };
import memcachedRestart from './memcached-restart.json' with { type: 'json' };
import mongodbClientClockSkew from './mongodb-client-clock-skew.json' with { type: 'json' };
import redisAofTokenReuse from './redis-aof-token-reuse.json' with { type: 'json' };
import fencingNewerTokenUnseen from './fencing-newer-token-unseen.json' with { type: 'json' };
import deploySplitsFencingCounter from './deploy-splits-fencing-counter.json' with { type: 'json' };
import redisRestartWithoutPersistence from './redis-restart-without-persistence.json' with { type: 'json' };
import sqlClockSkew from './sql-clock-skew.json' with { type: 'json' };
import zookeeperSessionExpiry from './zookeeper-session-expiry.json' with { type: 'json' };

import remainingLifetimeRefresh from './remaining-lifetime-refresh.json' with { type: 'json' };
import lockExpiredOnAcquire from './lock-expired-on-acquire.json' with { type: 'json' };
import autoReleaseFork from './auto-release-fork.json' with { type: 'json' };
import finallyAfterException from './finally-after-exception.json' with { type: 'json' };
import fencingTooLate from './fencing-too-late.json' with { type: 'json' };
import neverExpiringLock from './never-expiring-lock.json' with { type: 'json' };
import zookeeperRestart from './zookeeper-restart.json' with { type: 'json' };
import randomGcPauses from './random-gc-pauses.json' with { type: 'json' };
import flockTmpCleanup from './flock-tmp-cleanup.json' with { type: 'json' };

/**
 * The built-in scenarios, as written (before defaults), by name. Each file's
 * `name` equals its key here; a test keeps it so. The table has no
 * prototype, so a name someone types (`constructor`, `__proto__`) finds
 * nothing rather than something of Object's.
 */
export const BUILTIN_SCENARIOS: Readonly<Record<string, unknown>> = Object.assign(Object.create(null) as Record<string, unknown>, {
  'pause-past-expiry': pausePastExpiry,
  'crash-without-release': crashWithoutRelease,
  'exists-then-set-race': existsThenSetRace,
  'release-by-plain-del': releaseByPlainDel,
  'flock-across-servers': flockAcrossServers,
  'semaphore-two-containers': semaphoreTwoContainers,
  'deploy-config-change': deployConfigChange,
  'redlock-clock-jump': redlockClockJump,
  'redlock-restart-without-delay': redlockRestartWithoutDelay,
  'combined-unanimous-node-down': combinedUnanimousNodeDown,
  'memcached-restart': memcachedRestart,
  'memcached-eviction': memcachedEviction,
  'sql-clock-skew': sqlClockSkew,
  'mongodb-client-clock-skew': mongodbClientClockSkew,
  'redis-restart-without-persistence': redisRestartWithoutPersistence,
  'redis-aof-token-reuse': redisAofTokenReuse,
  'fencing-newer-token-unseen': fencingNewerTokenUnseen,
  'deploy-splits-fencing-counter': deploySplitsFencingCounter,
  'postgres-connection-loss': postgresConnectionLoss,
  'zookeeper-session-expiry': zookeeperSessionExpiry,
  'etcd-revision-fencing': etcdRevisionFencing,
  'remaining-lifetime-refresh': remainingLifetimeRefresh,
  'lock-expired-on-acquire': lockExpiredOnAcquire,
  'auto-release-fork': autoReleaseFork,
  'finally-after-exception': finallyAfterException,
  'fencing-too-late': fencingTooLate,
  'never-expiring-lock': neverExpiringLock,
  'zookeeper-restart': zookeeperRestart,
  'random-gc-pauses': randomGcPauses,
  'flock-tmp-cleanup': flockTmpCleanup,
});

export const BUILTIN_NAMES: readonly string[] = Object.keys(BUILTIN_SCENARIOS);
