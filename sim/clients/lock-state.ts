/**
 * The state one Symfony `Lock` object keeps, with its `Key`: the owner token
 * the store knows it by, Symfony's `dirty` flag (set by a successful
 * acquire or refresh, cleared by a release or a conflict: what the
 * destructor looks at), and the Key's expiring time, by the client's own
 * clock. What the client *believes* is kept beside it by the client: a
 * script can hold a Lock object whose lease it knows to be gone.
 */
export class LockState {
  dirty = false;
  /** Key::$expiringTime by the client's clock; null before a lease is set, and for locks that never expire. */
  expiringLocalUs: number | null = null;
  /** Whether the store's leases end by themselves (from the last grant; the store's capability before any). */
  expires: boolean;
  fence: number | undefined = undefined;
  shared = false;

  constructor(
    readonly key: string,
    /** The owner token: `client:n`, one per Lock object. */
    readonly owner: string,
    expires: boolean,
  ) {
    this.expires = expires;
  }

  /** What a forked child gets: a copy of the object, the same token. */
  copy(): LockState {
    const c = new LockState(this.key, this.owner, this.expires);
    c.dirty = this.dirty;
    c.expiringLocalUs = this.expiringLocalUs;
    c.fence = this.fence;
    c.shared = this.shared;
    return c;
  }

  /** Key::isExpired(): the lease ran out by the client's clock. */
  isExpired(nowLocalUs: number): boolean {
    return this.expiringLocalUs !== null && this.expiringLocalUs <= nowLocalUs;
  }
}
