import combinedUnanimousNodeDown from './combined-unanimous-node-down.json';
import crashWithoutRelease from './crash-without-release.json';
import deployConfigChange from './deploy-config-change.json';
import etcdRevisionFencing from './etcd-revision-fencing.json';
import existsThenSetRace from './exists-then-set-race.json';
import flockAcrossServers from './flock-across-servers.json';
import pausePastExpiry from './pause-past-expiry.json';
import postgresConnectionLoss from './postgres-connection-loss.json';
import redlockClockJump from './redlock-clock-jump.json';
import redlockRestartWithoutDelay from './redlock-restart-without-delay.json';
import releaseByPlainDel from './release-by-plain-del.json';
import semaphoreTwoContainers from './semaphore-two-containers.json';
import memcachedEviction from './memcached-eviction.json';
import memcachedRestart from './memcached-restart.json';
import mongodbClientClockSkew from './mongodb-client-clock-skew.json';
import redisAofTokenReuse from './redis-aof-token-reuse.json';
import fencingNewerTokenUnseen from './fencing-newer-token-unseen.json';
import deploySplitsFencingCounter from './deploy-splits-fencing-counter.json';
import redisRestartWithoutPersistence from './redis-restart-without-persistence.json';
import sqlClockSkew from './sql-clock-skew.json';
import zookeeperSessionExpiry from './zookeeper-session-expiry.json';

import remainingLifetimeRefresh from './remaining-lifetime-refresh.json';
import lockExpiredOnAcquire from './lock-expired-on-acquire.json';
import autoReleaseFork from './auto-release-fork.json';
import finallyAfterException from './finally-after-exception.json';
import fencingTooLate from './fencing-too-late.json';
import neverExpiringLock from './never-expiring-lock.json';
import zookeeperRestart from './zookeeper-restart.json';
import randomGcPauses from './random-gc-pauses.json';
import flockTmpCleanup from './flock-tmp-cleanup.json';

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
