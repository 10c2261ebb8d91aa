import type { RealmGroupSettingName } from "../../src/permissions/setting-registry.js";
import type { SystemGroupName } from "../../src/world/system-groups.js";
import { type Client, type Params, expectSuccess } from "./client.js";
import type { TestServer } from "./server.js";

/** Creates a group through the API as `client`; returns its ID. */
export async function createGroup(client: Client, name: string, params: Params = {}): Promise<number> {
  const body = expectSuccess(
    await client.post("/user_groups/create", { name, description: `${name} group`, members: [], ...params }),
  );
  return body.group_id as number;
}

/** Every named group as GET /user_groups shows it (deactivated ones included), by ID. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function groupsById(client: Client): Promise<Map<number, Record<string, any>>> {
  const body = expectSuccess(await client.get("/user_groups", { include_deactivated_groups: true }));
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return new Map((body.user_groups as Array<Record<string, any>>).map((g) => [g.id as number, g]));
}

/** One group's record (GET /user_groups, deactivated included). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function groupRecord(client: Client, groupId: number): Promise<Record<string, any>> {
  const group = (await groupsById(client)).get(groupId);
  if (!group) throw new Error(`no group ${groupId}`);
  return group;
}

export async function systemGroupId(server: TestServer, realmId: number, name: SystemGroupName) {
  return (await server.app.realms.get(server.app.knex, realmId)).systemGroupId(name);
}

/**
 * Points a realm permission setting at a group. There is no realm-settings endpoint on
 * this branch, so this writes the column (and drops the cached realm) directly.
 */
export async function setRealmGroupSetting(
  server: TestServer,
  realmId: number,
  setting: RealmGroupSettingName,
  groupId: number,
): Promise<void> {
  await server.app.db.transaction(async (tx) => {
    await tx
      .knex("realms")
      .where({ id: realmId })
      .update({ [`${setting}_id`]: groupId });
    tx.afterCommit(() => server.app.realms.invalidate(realmId));
  });
}
