import type { ChannelRow } from "../../src/db/channel-rows.js";
import type { RealmRow } from "../../src/db/rows.js";
import { expectSuccess, type ApiResponse, type Params } from "./client.js";
import type { TestRealm, TestUser } from "./factories.js";
import type { TestServer } from "./server.js";

/** Channels made over the API, and a few direct knobs the API does not offer yet. */

/** POST /channels/create as `creator`; returns the new channel's ID. */
export async function createChannel(
  creator: TestUser,
  name: string,
  subscribers: readonly TestUser[] = [creator],
  params: Params = {},
): Promise<number> {
  const body = expectSuccess(
    await creator.client.post("/channels/create", {
      name,
      subscribers: subscribers.map((u) => u.id),
      ...params,
    }),
  );
  return body.id as number;
}

/** Subscribes users (default: the caller) to channels by name over the API. */
export async function subscribe(
  actor: TestUser,
  names: readonly string[],
  principals?: readonly TestUser[],
  params: Params = {},
): Promise<ApiResponse["body"]> {
  return expectSuccess(
    await actor.client.post("/users/me/subscriptions", {
      subscriptions: names.map((name) => ({ name })),
      ...(principals ? { principals: principals.map((u) => u.id) } : {}),
      ...params,
    }),
  );
}

/** The channel's row as stored. */
export async function channelRow(server: TestServer, channelId: number): Promise<ChannelRow> {
  const row = await server.app.knex<ChannelRow>("streams").where({ id: channelId }).first();
  if (!row) throw new Error(`no channel ${channelId}`);
  return row;
}

/** Active subscribers, from the database. */
export async function subscriberIds(server: TestServer, channelId: number): Promise<number[]> {
  return server.app
    .knex("subscriptions")
    .where({ stream_id: channelId, active: true })
    .orderBy("user_id")
    .pluck<number[]>("user_id");
}

/** Sets realm columns directly (organization settings have no endpoint yet). */
export async function setRealmFields(server: TestServer, realm: TestRealm, fields: Partial<RealmRow>) {
  await server.app.knex("realms").where({ id: realm.id }).update(fields);
  server.app.realms.invalidate(realm.id);
}

/** The ID of a system group of the realm. */
export async function systemGroupId(server: TestServer, realm: TestRealm, name: string): Promise<number> {
  const snapshot = await server.app.realms.get(server.app.knex, realm.id);
  return snapshot.systemGroupId(name as Parameters<typeof snapshot.systemGroupId>[0]);
}

/** Messages stored in a channel, oldest first. */
export async function channelMessages(server: TestServer, channelId: number) {
  return server.app
    .knex("messages")
    .where({ stream_id: channelId })
    .orderBy("id")
    .select<Array<{ id: number; sender_id: number; topic: string; content: string }>>(
      "id",
      "sender_id",
      "topic",
      "content",
    );
}

/** Deactivates a user directly (user deactivation has no endpoint yet). */
export async function deactivateUser(server: TestServer, realm: TestRealm, user: TestUser) {
  await server.app.knex("users").where({ id: user.id }).update({ is_active: false });
  await server.app.knex("subscriptions").where({ user_id: user.id }).update({ is_user_active: false });
  server.app.realms.invalidate(realm.id);
  server.app.channels.invalidate(realm.id);
}

/** Direct messages a user received, newest last. */
export async function directMessagesTo(server: TestServer, user: TestUser) {
  return server.app
    .knex("messages as m")
    .join("recipients as r", "r.id", "m.recipient_id")
    .where({ "r.type": 1, "r.type_id": user.id })
    .orderBy("m.id")
    .select<Array<{ id: number; sender_id: number; content: string }>>("m.id", "m.sender_id", "m.content");
}

/** The default cast of a factory realm, typed as present. */
export type Cast = Record<
  "desdemona" | "iago" | "prospero" | "hamlet" | "othello" | "cordelia" | "polonius",
  TestUser
>;
export const cast = (realm: TestRealm): Cast => realm.users as Cast;
