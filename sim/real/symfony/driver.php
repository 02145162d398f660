<?php
// Locklab's driver for the real Symfony Lock (5.4, from Debian): it reads one
// JSON object per line on stdin — first the store to use, then the steps of a
// scenario client — performs each with Symfony's own Lock and stores, and
// answers each with one JSON line: the result, or the exception Symfony threw.
//
//   {"store": {...}, "resource": "job"}         → {"ready": true, "stores": [...]}
//   {"id": 1, "step": "acquire", "owner": "A:1", "ttl": 10, "blocking": false}
//   {"id": 2, "step": "refresh", "owner": "A:1", "ttl": 10}
//   {"id": 3, "step": "isAcquired", "owner": "A:1"}
//   {"id": 4, "step": "getRemainingLifetime", "owner": "A:1"}
//   {"id": 5, "step": "isExpired", "owner": "A:1"}
//   {"id": 6, "step": "release", "owner": "A:1"}
//   {"id": 7, "step": "acquireRead", "owner": "A:2", "ttl": 10, "blocking": false}
//   → {"id": 1, "ok": true, "result": true}
//   → {"id": 1, "ok": false, "exception": {"class": "...LockConflictedException", "message": "...",
//                                          "chain": ["LockConflictedException"]}}
//
// The end of stdin is the end of the script: PHP exits normally, and the
// stores' connection objects are destroyed with it.
//
// Each acquisition (owner) gets a Lock of its own, with autoRelease off (the
// scenario says when to release), and its Key carries the owner as the token
// every store writes, so the runner can see on the servers whose lock it is.

declare(strict_types=1);

require_once '/usr/share/php/Symfony/Component/Lock/autoload.php';

use Symfony\Component\Lock\Key;
use Symfony\Component\Lock\Lock;
use Symfony\Component\Lock\PersistingStoreInterface;
use Symfony\Component\Lock\Store\CombinedStore;
use Symfony\Component\Lock\Store\MemcachedStore;
use Symfony\Component\Lock\Store\PdoStore;
use Symfony\Component\Lock\Store\PostgreSqlStore;
use Symfony\Component\Lock\Store\RedisStore;
use Symfony\Component\Lock\Strategy\ConsensusStrategy;
use Symfony\Component\Lock\Strategy\UnanimousStrategy;

/** @return array{0: string, 1: int} host and port of a URL */
function hostPort(string $url): array
{
    $parts = parse_url($url);
    if ($parts === false || !isset($parts['host'], $parts['port'])) {
        throw new InvalidArgumentException("not a server URL: $url");
    }
    return [$parts['host'], (int) $parts['port']];
}

/**
 * A PDO connection to the database a postgres:// URL names, as its user
 * (postgres when it names none), so that Symfony's table and advisory locks
 * are where the run looks for them and cleans them up.
 */
function pgsqlPdo(string $url, string $application): \PDO
{
    [$host, $port] = hostPort($url);
    $parts = parse_url($url);
    $database = rawurldecode(ltrim($parts['path'] ?? '', '/'));
    $dsn = "pgsql:host=$host;port=$port;dbname=" . ($database === '' ? 'postgres' : $database) . ";options='--application_name=$application'";
    $user = isset($parts['user']) ? rawurldecode($parts['user']) : 'postgres';
    $password = isset($parts['pass']) ? rawurldecode($parts['pass']) : null;
    return new \PDO($dsn, $user, $password, [\PDO::ATTR_ERRMODE => \PDO::ERRMODE_EXCEPTION]);
}

/**
 * Builds the store a scenario's store spec names, and lists every store
 * class whose token state must carry the owner.
 *
 * @param array<string, mixed> $spec
 * @param list<class-string> $classes
 */
function buildStore(array $spec, string $client, array &$classes): PersistingStoreInterface
{
    switch ($spec['kind']) {
        case 'redis':
            [$host, $port] = hostPort($spec['url']);
            $redis = new \Redis();
            $redis->connect($host, $port, 2.0);
            $classes[] = RedisStore::class;
            return new RedisStore($redis);
        case 'memcached':
            [$host, $port] = hostPort($spec['url']);
            $memcached = new \Memcached();
            $memcached->addServer($host, $port);
            $classes[] = MemcachedStore::class;
            return new MemcachedStore($memcached);
        case 'postgres':
            $pdo = pgsqlPdo($spec['url'], $client);
            return new PostgreSqlStore($pdo);
        case 'sql':
            $pdo = pgsqlPdo($spec['url'], $client);
            $store = new PdoStore($pdo, [], 0.0);
            try {
                $store->createTable();
            } catch (\PDOException $e) {
                // Another client created it first.
            }
            $classes[] = PdoStore::class;
            return $store;
        case 'combined':
            $stores = [];
            foreach ($spec['stores'] as $sub) {
                $stores[] = buildStore($sub, $client, $classes);
            }
            $strategy = $spec['strategy'] === 'unanimous' ? new UnanimousStrategy() : new ConsensusStrategy();
            return new CombinedStore($stores, $strategy);
        default:
            throw new InvalidArgumentException('no Symfony store for kind ' . $spec['kind']);
    }
}

/** @return array<string, mixed> */
function exceptionOf(\Throwable $e): array
{
    $out = ['class' => get_class($e), 'message' => $e->getMessage()];
    // The whole chain of causes, innermost last: Lock wraps what the store threw.
    $causes = [];
    $chain = [(new \ReflectionClass($e))->getShortName()];
    for ($p = $e->getPrevious(); $p !== null; $p = $p->getPrevious()) {
        $causes[] = get_class($p) . ': ' . $p->getMessage();
        $chain[] = (new \ReflectionClass($p))->getShortName();
        $out['root'] = $p->getMessage();
    }
    $out['chain'] = $chain;
    if ($causes !== []) {
        $out['previous'] = implode(' <- ', $causes);
    }
    return $out;
}

function answer(array $reply): void
{
    fwrite(STDOUT, json_encode($reply, JSON_UNESCAPED_SLASHES | JSON_PRESERVE_ZERO_FRACTION) . "\n");
    fflush(STDOUT);
}

$store = null;
$classes = [];
$resource = '';
/** @var array<string, Lock> $locks */
$locks = [];

while (($line = fgets(STDIN)) !== false) {
    $line = trim($line);
    if ($line === '') {
        continue;
    }
    $msg = json_decode($line, true);
    if (!is_array($msg)) {
        answer(['ok' => false, 'exception' => ['class' => 'JsonException', 'message' => 'expected one JSON object per line']]);
        continue;
    }
    $id = $msg['id'] ?? null;
    try {
        if (isset($msg['store'])) {
            $classes = [];
            $store = buildStore($msg['store'], (string) ($msg['client'] ?? 'locklab'), $classes);
            $resource = (string) $msg['resource'];
            answer(['ready' => true, 'stores' => $classes, 'symfony' => '5.4']);
            continue;
        }
        if ($store === null) {
            throw new LogicException('the first line must name the store');
        }
        $owner = (string) $msg['owner'];
        $step = (string) $msg['step'];
        if ($step === 'acquire' || $step === 'acquireRead') {
            $key = new Key($resource);
            foreach ($classes as $class) {
                $key->setState($class, $owner);
            }
            $locks[$owner] = new Lock($key, $store, (float) $msg['ttl'], false);
        }
        $lock = $locks[$owner] ?? null;
        if ($lock === null) {
            throw new LogicException("no acquisition named $owner");
        }
        switch ($step) {
            case 'acquire':
                $result = $lock->acquire((bool) ($msg['blocking'] ?? false));
                break;
            case 'acquireRead':
                // On a store without shared locks Symfony falls back to an ordinary acquire itself.
                $result = $lock->acquireRead((bool) ($msg['blocking'] ?? false));
                break;
            case 'refresh':
                $lock->refresh(isset($msg['ttl']) ? (float) $msg['ttl'] : null);
                $result = true;
                break;
            case 'isAcquired':
                $result = $lock->isAcquired();
                break;
            case 'getRemainingLifetime':
                $result = $lock->getRemainingLifetime();
                break;
            case 'isExpired':
                $result = $lock->isExpired();
                break;
            case 'release':
                $lock->release();
                $result = true;
                break;
            default:
                throw new InvalidArgumentException("unknown step $step");
        }
        answer(['id' => $id, 'ok' => true, 'result' => $result, 'isAcquired' => $lock->isAcquired()]);
    } catch (\Throwable $e) {
        answer(['id' => $id, 'ok' => false, 'exception' => exceptionOf($e)]);
    }
}
