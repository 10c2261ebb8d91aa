import type { Knex } from "knex";
import type { RealmRow, UserGroupRow, UserRow } from "../db/rows.js";
import { RealmSnapshot } from "../world/realm.js";

export interface ApiKeyOwner {
  readonly keyHash: string;
  readonly userId: number;
  readonly realmId: number;
}

/** Caches realm snapshots and the API-key index; loads lazily, drops on invalidation. */
export class RealmCache {
  private readonly snapshots = new Map<number, Promise<RealmSnapshot>>();
  private readonly generations = new Map<number, number>();
  private keyIndex: Promise<Map<string, ApiKeyOwner>> | null = null;
  private keyGeneration = 0;
  private primaryRealmId: number | null = null;

  /**
   * The realm's snapshot. Pass the transaction's knex when inside one: SQLite has a
   * single connection, so a query on the root knex would wait for the open transaction.
   */
  get(knex: Knex, realmId: number): Promise<RealmSnapshot> {
    // Inside a transaction, always read fresh: the state must include the transaction's
    // own uncommitted writes (so never cache it), and awaiting a load another request
    // started on the root knex would wait for the connection this transaction holds.
    if ((knex as Knex & { isTransaction?: boolean }).isTransaction) return loadSnapshot(knex, realmId);
    const cached = this.snapshots.get(realmId);
    if (cached) return cached;
    const generation = this.generations.get(realmId) ?? 0;
    const loading = loadSnapshot(knex, realmId);
    this.snapshots.set(realmId, loading);
    loading.then(
      () => {
        // Invalidated while loading: what we read may predate the change.
        if ((this.generations.get(realmId) ?? 0) !== generation) {
          if (this.snapshots.get(realmId) === loading) this.snapshots.delete(realmId);
        }
      },
      () => this.snapshots.delete(realmId),
    );
    return loading;
  }

  /** Told of each invalidation (several server processes pass them on: events/replication.ts). */
  onInvalidate: ((cache: "realms" | "apiKeys", realmId: number) => void) | null = null;

  invalidate(realmId: number): void {
    this.onInvalidate?.("realms", realmId);
    this.generations.set(realmId, (this.generations.get(realmId) ?? 0) + 1);
    this.snapshots.delete(realmId);
  }

  /** Who owns an API key hash, if anyone (the stored hash is returned for comparison). */
  async apiKeyOwner(knex: Knex, keyHash: string): Promise<ApiKeyOwner | undefined> {
    if (!this.keyIndex) {
      const generation = this.keyGeneration;
      const loading = keyOwners(knex).then((owners) => new Map(owners.map((o) => [o.keyHash, o])));
      this.keyIndex = loading;
      loading.then(
        () => {
          if (this.keyGeneration !== generation && this.keyIndex === loading) this.keyIndex = null;
        },
        () => (this.keyIndex = null),
      );
    }
    const known = (await this.keyIndex).get(keyHash);
    if (known) return known;
    // A key issued since the index loaded, by an admin command (this server hears of its
    // writes only at the next external_change_poll_ms): one indexed lookup settles it, and
    // a key found means the index is stale.
    const [fresh] = await keyOwners(knex).where("k.key_hash", keyHash);
    if (fresh) {
      this.keyGeneration++;
      this.keyIndex = null;
    }
    return fresh;
  }

  invalidateApiKeys(): void {
    this.onInvalidate?.("apiKeys", 0);
    this.keyGeneration++;
    this.keyIndex = null;
  }

  /** The realm this server serves (chatd runs one realm per data directory). */
  async primaryRealm(knex: Knex): Promise<RealmSnapshot | null> {
    if (this.primaryRealmId === null) {
      const row = await knex<RealmRow>("realms").orderBy("id").first("id");
      if (!row) return null;
      this.primaryRealmId = row.id;
    }
    return this.get(knex, this.primaryRealmId);
  }

  /** Forgets everything (another process, such as the CLI, wrote to the database). */
  invalidateAll(): void {
    for (const realmId of [...this.snapshots.keys(), ...this.generations.keys()]) this.invalidate(realmId);
    this.invalidateApiKeys();
    this.primaryRealmId = null;
  }

  forgetPrimaryRealm(): void {
    this.primaryRealmId = null;
  }
}

async function loadSnapshot(knex: Knex, realmId: number): Promise<RealmSnapshot> {
  const realm = await knex<RealmRow>("realms").where({ id: realmId }).first();
  if (!realm) throw new Error(`no realm ${realmId}`);
  // The driver builds each row property by property; with the users table's ~90 columns V8
  // keeps such an object in dictionary mode (about 6 KB a user). A copy has a fast shape
  // shared by every row (under 1 KB), and a snapshot holds every user for its lifetime.
  const users = (await knex<UserRow>("users").where({ realm_id: realmId }).orderBy("id")).map(
    (row): UserRow => ({ ...row }),
  );
  const groupRows = await knex<UserGroupRow>("user_groups").where({ realm_id: realmId }).orderBy("id");
  const members = await knex("user_group_members as m")
    .join("user_groups as g", "g.id", "m.group_id")
    .where("g.realm_id", realmId)
    .select<Array<{ group_id: number; user_id: number }>>("m.group_id", "m.user_id");
  const subgroups = await knex("user_group_subgroups as s")
    .join("user_groups as g", "g.id", "s.supergroup_id")
    .where("g.realm_id", realmId)
    .select<Array<{ supergroup_id: number; subgroup_id: number }>>("s.supergroup_id", "s.subgroup_id");
  const membersByGroup = groupBy(
    members,
    (m) => m.group_id,
    (m) => m.user_id,
  );
  const subgroupsByGroup = groupBy(
    subgroups,
    (s) => s.supergroup_id,
    (s) => s.subgroup_id,
  );
  const groups = groupRows.map((row) => ({
    row,
    members: (membersByGroup.get(row.id) ?? []).sort((a, b) => a - b),
    subgroups: (subgroupsByGroup.get(row.id) ?? []).sort((a, b) => a - b),
  }));
  return new RealmSnapshot(realm, users, groups);
}

function groupBy<T>(rows: T[], key: (row: T) => number, value: (row: T) => number) {
  const map = new Map<number, number[]>();
  for (const row of rows) {
    const list = map.get(key(row));
    if (list) list.push(value(row));
    else map.set(key(row), [value(row)]);
  }
  return map;
}

/** API keys' owners: every key's, or (with a where) one key's. */
function keyOwners(knex: Knex) {
  return knex("api_keys as k")
    .join("users as u", "u.id", "k.user_id")
    .select<ApiKeyOwner[]>("k.key_hash as keyHash", "k.user_id as userId", "u.realm_id as realmId");
}
