import { insertReturningId } from "../db/insert.js";
import { bool, type RealmRow } from "../db/rows.js";
import type { Tx } from "../db/tx.js";
import { badRequest } from "../errors.js";
import { REALM_GROUP_SETTINGS, REALM_GROUP_SETTING_NAMES } from "../permissions/setting-registry.js";
import { MAX_REALM_NAME_LENGTH } from "../lib/realm-limits.js";
import { SYSTEM_GROUPS, type SystemGroupName } from "../world/system-groups.js";

const USER_GROUP_SETTING_COLUMNS = [
  "can_add_members_group_id",
  "can_join_group_id",
  "can_leave_group_id",
  "can_manage_group_id",
  "can_mention_group_id",
  "can_remove_members_group_id",
] as const;

export interface CreateRealmInput {
  name: string;
  stringId?: string;
  description?: string;
}

/**
 * Creates a realm with its system groups (nested owners ⊂ administrators ⊂ ... ⊂
 * internet), the realm's permission settings at their defaults, read receipts as Zulip
 * sets them for a new organization, and its settings for new users.
 */
export async function doCreateRealm(tx: Tx, input: CreateRealmInput): Promise<number> {
  const name = input.name.trim();
  if (!name) throw badRequest("Organization name can't be empty.");
  if (name.length > MAX_REALM_NAME_LENGTH) throw badRequest("Organization name is too long.");
  const realmId = await insertReturningId(tx.knex, "realms", {
    string_id: input.stringId ?? "",
    name,
    description: input.description ?? "",
    date_created: tx.now,
  });

  const groupIds = await doCreateSystemGroups(tx, realmId);
  const settings = defaultRealmGroupSettings(groupIds);
  await tx
    .knex("realms")
    .where({ id: realmId })
    .update({ ...settings, ...(await readReceiptsDefault(tx, realmId)) });
  // The settings new users get start at Zulip's defaults (the table's column defaults).
  await tx.knex("realm_user_settings_defaults").insert({ realm_id: realmId });
  return realmId;
}

/**
 * A realm's system groups, nested owners ⊂ administrators ⊂ ... ⊂ internet, each managed
 * by role:nobody; their ids by name. Also used by the importer for exports without them.
 */
export async function doCreateSystemGroups(
  tx: Pick<Tx, "knex" | "now">,
  realmId: number,
): Promise<Map<SystemGroupName, number>> {
  const groupIds = new Map<SystemGroupName, number>();
  for (const spec of SYSTEM_GROUPS) {
    const groupId = await insertReturningId(tx.knex, "user_groups", {
      realm_id: realmId,
      name: spec.name,
      description: spec.description,
      is_system_group: true,
      date_created: tx.now,
    });
    groupIds.set(spec.name, groupId);
  }
  const id = (name: SystemGroupName) => groupIds.get(name)!;
  const chain = SYSTEM_GROUPS.filter((s) => s.subgroupOf !== null).map((s) => ({
    supergroup_id: id(s.subgroupOf!),
    subgroup_id: id(s.name),
  }));
  await tx.knex("user_group_subgroups").insert(chain);
  // System groups are managed by roles, not by people: every permission is role:nobody.
  const nobody = Object.fromEntries(USER_GROUP_SETTING_COLUMNS.map((c) => [c, id("role:nobody")]));
  await tx
    .knex("user_groups")
    .where({ realm_id: realmId })
    .whereIn("id", [...groupIds.values()])
    .update(nobody);
  return groupIds;
}

/** The realm's permission-setting columns (`<setting>_id`) at a new realm's defaults. */
export function defaultRealmGroupSettings(
  groupIds: ReadonlyMap<SystemGroupName, number>,
): Record<string, number> {
  return Object.fromEntries(
    REALM_GROUP_SETTING_NAMES.map((s) => {
      const defaultGroup = REALM_GROUP_SETTINGS[s].defaultGroupName;
      if (defaultGroup === "creator") throw new Error(`realm setting ${s} cannot default to a creator`);
      return [`${s}_id`, groupIds.get(defaultGroup)!];
    }),
  );
}

/**
 * Zulip's do_create_realm: closed organizations (invitations required, or emails
 * restricted to domains) usually want read receipts, so they start with them on; the
 * column's default (off) stays for the others. The realm's columns say which it is.
 */
async function readReceiptsDefault(tx: Tx, realmId: number): Promise<Pick<RealmRow, "enable_read_receipts">> {
  const realm = await tx
    .knex<RealmRow>("realms")
    .where({ id: realmId })
    .first("invite_required", "emails_restricted_to_domains");
  const closed = bool(realm!.invite_required) || bool(realm!.emails_restricted_to_domains);
  return { enable_read_receipts: closed };
}
