import { bool, type RealmRow, type UserGroupRow, type UserRow } from "../db/rows.js";
import type { SystemGroupName } from "./system-groups.js";

export interface GroupNode {
  readonly row: UserGroupRow;
  readonly members: readonly number[];
  readonly subgroups: readonly number[];
}

/**
 * An immutable, in-memory picture of a realm's small, hot, rarely-changing data: the
 * realm row, its users and its groups. Every request reads it instead of querying; every
 * write path that changes it calls `tx.afterCommit(() => cache.invalidate(realmId))`.
 */
export class RealmSnapshot {
  readonly usersById = new Map<number, UserRow>();
  private readonly usersByEmail = new Map<string, UserRow>();
  /** System bots (Notification Bot): not people, so not in `users`, `user()` or groups. */
  readonly systemBots: readonly UserRow[];
  readonly groups = new Map<number, GroupNode>();
  private readonly systemGroups = new Map<string, number>();
  private readonly recursiveMembersMemo = new Map<number, ReadonlySet<number>>();

  constructor(
    readonly realm: RealmRow,
    users: readonly UserRow[],
    groups: readonly GroupNode[],
  ) {
    this.systemBots = users.filter((user) => bool(user.is_system_bot));
    for (const user of users) {
      if (bool(user.is_system_bot)) continue;
      this.usersById.set(user.id, user);
      this.usersByEmail.set(user.email.toLowerCase(), user);
      this.usersByEmail.set(user.delivery_email.toLowerCase(), user);
    }
    for (const group of groups) {
      this.groups.set(group.row.id, group);
      if (bool(group.row.is_system_group) && group.row.name) {
        this.systemGroups.set(group.row.name, group.row.id);
      }
    }
  }

  get id(): number {
    return this.realm.id;
  }

  user(id: number): UserRow | undefined {
    return this.usersById.get(id);
  }

  /** A user or a system bot (message senders). */
  userOrSystemBot(id: number): UserRow | undefined {
    return this.usersById.get(id) ?? this.systemBots.find((bot) => bot.id === id);
  }

  /** By API email or real email, ignoring case. Visibility is the caller's concern. */
  userByEmail(email: string): UserRow | undefined {
    return this.usersByEmail.get(email.toLowerCase());
  }

  get users(): IterableIterator<UserRow> {
    return this.usersById.values();
  }

  systemGroupId(name: SystemGroupName): number {
    const id = this.systemGroups.get(name);
    if (id === undefined) throw new Error(`realm ${this.realm.id} has no system group ${name}`);
    return id;
  }

  /** Every user in the group, directly or through subgroups at any depth. */
  recursiveMembers(groupId: number): ReadonlySet<number> {
    const memo = this.recursiveMembersMemo.get(groupId);
    if (memo) return memo;
    const members = new Set<number>();
    const seen = new Set<number>();
    const stack = [groupId];
    while (stack.length > 0) {
      const id = stack.pop()!;
      if (seen.has(id)) continue;
      seen.add(id);
      const node = this.groups.get(id);
      if (!node) continue;
      for (const userId of node.members) members.add(userId);
      stack.push(...node.subgroups);
    }
    this.recursiveMembersMemo.set(groupId, members);
    return members;
  }
}
