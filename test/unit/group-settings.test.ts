import { expect } from "chai";
import type { App } from "../../src/app.js";
import { insertReturningId } from "../../src/db/insert.js";
import type { RealmSnapshot } from "../../src/world/realm.js";
import {
  validateGroupSettingChange,
  groupSettingEquals,
  normalizeGroupSetting,
  storeGroupSetting,
  validateGroupSetting,
} from "../../src/permissions/group-setting-values.js";
import {
  groupSettingValueForApi,
  isUserInGroup,
  userHasPermission,
} from "../../src/permissions/group-settings.js";
import {
  CHANNEL_GROUP_SETTINGS,
  REALM_GROUP_SETTINGS,
  USER_GROUP_SETTINGS,
} from "../../src/permissions/setting-registry.js";
import type { TestRealm } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("permissions: group-setting values", function () {
  let server: TestServer;
  let app: App;
  let realm: TestRealm;
  let groups: { outer: number; middle: number; inner: number; deactivated: number };

  const snapshot = (): Promise<RealmSnapshot> => app.realms.get(app.knex, realm.id);

  before(async function () {
    server = await startTestServer();
    app = server.app;
    realm = await server.factory.realm();
    // outer ⊃ middle ⊃ inner; hamlet is only in inner, othello only in outer.
    const ids = await app.db.transaction(async (tx) => {
      const make = (name: string, deactivated = false) =>
        insertReturningId(tx.knex, "user_groups", { realm_id: realm.id, name, description: "", deactivated });
      const outer = await make("outer");
      const middle = await make("middle");
      const inner = await make("inner");
      const deactivated = await make("retired", true);
      await tx.knex("user_group_subgroups").insert([
        { supergroup_id: outer, subgroup_id: middle },
        { supergroup_id: middle, subgroup_id: inner },
        // A cycle must not hang membership evaluation.
        { supergroup_id: inner, subgroup_id: outer },
      ]);
      await tx.knex("user_group_members").insert([
        { group_id: inner, user_id: realm.users.hamlet!.id },
        { group_id: outer, user_id: realm.users.othello!.id },
        { group_id: inner, user_id: realm.users.polonius!.id },
      ]);
      return { outer, middle, inner, deactivated };
    });
    groups = ids;
    app.realms.invalidate(realm.id);
  });
  after(async function () {
    await server.close();
  });

  it("resolves membership recursively through nested subgroups", async function () {
    const s = await snapshot();
    const hamlet = realm.users.hamlet!.id;
    expect(isUserInGroup(s, hamlet, groups.outer)).to.equal(true);
    expect(isUserInGroup(s, hamlet, groups.middle)).to.equal(true);
    expect(isUserInGroup(s, hamlet, groups.outer, { directOnly: true })).to.equal(false);
    expect(isUserInGroup(s, realm.users.cordelia!.id, groups.outer)).to.equal(false);
  });

  it("puts roles into the system groups, recursively", async function () {
    const s = await snapshot();
    const admins = s.systemGroupId("role:administrators");
    const members = s.systemGroupId("role:members");
    const everyone = s.systemGroupId("role:everyone");
    expect(isUserInGroup(s, realm.users.desdemona!.id, admins)).to.equal(true);
    expect(isUserInGroup(s, realm.users.iago!.id, admins)).to.equal(true);
    expect(isUserInGroup(s, realm.users.prospero!.id, admins)).to.equal(false);
    expect(isUserInGroup(s, realm.users.prospero!.id, members)).to.equal(true);
    expect(isUserInGroup(s, realm.users.polonius!.id, members)).to.equal(false);
    expect(isUserInGroup(s, realm.users.polonius!.id, everyone)).to.equal(true);
    expect(isUserInGroup(s, realm.users.desdemona!.id, s.systemGroupId("role:internet"))).to.equal(true);
    expect(s.recursiveMembers(s.systemGroupId("role:nobody")).size).to.equal(0);
  });

  it("denies guests any setting that may not include everyone, even as members", async function () {
    const s = await snapshot();
    const polonius = s.user(realm.users.polonius!.id)!;
    expect(userHasPermission(s, polonius, groups.inner, { allowEveryoneGroup: false })).to.equal(false);
    expect(userHasPermission(s, polonius, groups.inner, { allowEveryoneGroup: true })).to.equal(true);
  });

  it("normalises explicit sets as Zulip does", async function () {
    const s = await snapshot();
    expect(normalizeGroupSetting(s, { direct_members: [], direct_subgroups: [groups.inner] })).to.deep.equal({
      kind: "named",
      groupId: groups.inner,
    });
    expect(normalizeGroupSetting(s, { direct_members: [], direct_subgroups: [] })).to.deep.equal({
      kind: "named",
      groupId: s.systemGroupId("role:nobody"),
    });
    expect(normalizeGroupSetting(s, { direct_members: [5, 3, 5], direct_subgroups: [] })).to.deep.equal({
      kind: "anonymous",
      members: [3, 5],
      subgroups: [],
    });
  });

  it("refuses unknown and deactivated groups and users, and forbidden system groups", async function () {
    const s = await snapshot();
    const fail = (fn: () => unknown, msg: string) => expect(fn).to.throw(msg);
    const send = CHANNEL_GROUP_SETTINGS.can_send_message_group;
    fail(() => validateGroupSetting(s, "can_send_message_group", send, 999999), "Invalid user group");
    fail(
      () => validateGroupSetting(s, "can_send_message_group", send, groups.deactivated),
      "User group is deactivated.",
    );
    fail(
      () =>
        validateGroupSetting(s, "can_send_message_group", send, {
          direct_members: [999999],
          direct_subgroups: [],
        }),
      "Invalid user ID: 999999",
    );
    fail(
      () =>
        validateGroupSetting(s, "can_send_message_group", send, {
          direct_members: [realm.users.hamlet!.id],
          direct_subgroups: [888888],
        }),
      "Invalid user group ID: 888888",
    );
    fail(
      () => validateGroupSetting(s, "can_send_message_group", send, s.systemGroupId("role:internet")),
      "'can_send_message_group' setting cannot be set to 'role:internet' group.",
    );
    fail(
      () =>
        validateGroupSetting(
          s,
          "can_manage_group",
          USER_GROUP_SETTINGS.can_manage_group,
          s.systemGroupId("role:everyone"),
        ),
      "'can_manage_group' setting cannot be set to 'role:everyone' group.",
    );
    fail(
      () =>
        validateGroupSetting(
          s,
          "can_mention_group",
          USER_GROUP_SETTINGS.can_mention_group,
          s.systemGroupId("role:owners"),
        ),
      "'can_mention_group' setting cannot be set to 'role:owners' group.",
    );
    fail(
      () =>
        validateGroupSetting(
          s,
          "can_manage_all_groups",
          REALM_GROUP_SETTINGS.can_manage_all_groups,
          s.systemGroupId("role:nobody"),
        ),
      "'can_manage_all_groups' setting cannot be set to 'role:nobody' group.",
    );
    fail(
      () =>
        validateGroupSetting(
          s,
          "can_access_all_users_group",
          REALM_GROUP_SETTINGS.can_access_all_users_group,
          groups.inner,
        ),
      "'can_access_all_users_group' must be a system user group.",
    );
    expect(validateGroupSetting(s, "can_send_message_group", send, groups.outer)).to.deep.equal({
      kind: "named",
      groupId: groups.outer,
    });
  });

  it("stores explicit sets as anonymous groups, shown back as sets, compared as sets", async function () {
    const value = {
      direct_members: [realm.users.othello!.id, realm.users.hamlet!.id],
      direct_subgroups: [groups.middle],
    };
    const s = await snapshot();
    const stored = await app.db.transaction((tx) =>
      storeGroupSetting(
        tx,
        realm.id,
        validateGroupSetting(
          s,
          "can_send_message_group",
          CHANNEL_GROUP_SETTINGS.can_send_message_group,
          value,
        ),
      ),
    );
    app.realms.invalidate(realm.id);
    const fresh = await snapshot();
    expect(groupSettingValueForApi(fresh, stored)).to.deep.equal({
      direct_members: [realm.users.hamlet!.id, realm.users.othello!.id].sort((a, b) => a - b),
      direct_subgroups: [groups.middle],
    });
    expect(
      groupSettingEquals(fresh, stored, { ...value, direct_members: [...value.direct_members].reverse() }),
    ).to.equal(true);
    expect(groupSettingEquals(fresh, stored, groups.middle)).to.equal(false);
    expect(() =>
      validateGroupSettingChange(
        fresh,
        "can_send_message_group",
        CHANNEL_GROUP_SETTINGS.can_send_message_group,
        stored,
        {
          new: groups.outer,
          old: groups.middle,
        },
      ),
    ).to.throw("'old' value does not match the expected value.");
    expect(
      validateGroupSettingChange(
        fresh,
        "can_send_message_group",
        CHANNEL_GROUP_SETTINGS.can_send_message_group,
        stored,
        {
          new: value,
          old: value,
        },
      ),
    ).to.equal(null);
  });
});
