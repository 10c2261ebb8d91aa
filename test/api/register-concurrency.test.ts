import { expect } from "chai";
import { STATE_FETCHERS } from "../../src/queries/register.js";
import type { StateFetcher } from "../../src/queries/state-context.js";
import { applyEvents, type State } from "../helpers/apply-events.js";
import { cast, createChannel, subscribe, type Cast } from "../helpers/channels.js";
import { expectSuccess, type Params } from "../helpers/client.js";
import { pendingEvents, register, stable } from "../helpers/events.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { sendDirect, sendToChannel } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

/**
 * POST /register reads its state from a read snapshot pinned inside the write lock, and
 * the reads run after the lock is released (db/tx.ts snapshotRead). These tests fire
 * registers while other clients commit, and check Zulip's verify_action property for each:
 * its state plus the events its queue then got equals a fresh register's state (a change
 * in both would be applied twice, a change in neither would be missing).
 */

/** The keys where `applied` and `fresh` differ, with both values, for the failure message. */
function differences(applied: State, fresh: State): string[] {
  return Object.keys({ ...applied, ...fresh })
    .filter((key) => JSON.stringify(applied[key]) !== JSON.stringify(fresh[key]))
    .map(
      (key) => `${key}:\n  applied ${JSON.stringify(applied[key])}\n  fresh   ${JSON.stringify(fresh[key])}`,
    );
}

const REGISTER_PARAMS: Params = { include_subscribers: true, client_gravatar: false };

/** Further registers, each checked against a fresh register with the same parameters. */
const VARIANTS: Array<{ params: Params; includeSubscribers: boolean | "partial" }> = [
  // Presence computed inside the lock, realm_users with the captured profile map (drafts: see below).
  {
    params: { fetch_event_types: ["presence", "realm_user", "drafts"], client_gravatar: false },
    includeSubscribers: false,
  },
  { params: { include_subscribers: "partial", client_gravatar: false }, includeSubscribers: "partial" },
];

/** Runs `step` `times` times in turn (one client's stream of changes). */
async function repeat(times: number, step: (i: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < times; i++) await step(i);
}

describe("POST /register under concurrent commits", function () {
  this.timeout(120_000);

  describe("state + queued events = a fresh register", function () {
    let server: TestServer;
    let realm: TestRealm;
    let u: Cast;
    let phone: number;

    before(async function () {
      server = await startTestServer({ max_queues_per_user: 1000 });
      realm = await server.factory.realm();
      u = cast(realm);
      await createChannel(u.hamlet, "Elsinore", [u.hamlet, u.iago, u.othello]);
      await createChannel(u.iago, "Yorick", [u.iago, u.cordelia]);
      await createChannel(u.hamlet, "Ophelia", [u.hamlet]);
      phone = expectSuccess(
        await u.iago.client.post("/realm/profile_fields", { field_type: 1, name: "Phone" }),
      ).id as number;
    });
    after(async function () {
      await server.close();
    });

    it("for every register fired while messages, flags, subscriptions, users, presence, profile data and realm settings change", async function () {
      const viewer = u.iago;
      const sent: number[] = [];
      await sendToChannel(u.hamlet, "Elsinore", "castle", "a first message").then((id) => sent.push(id));
      // Besides the chance interleaving below, every register's reads wait for a commit
      // made after its snapshot was pinned (a message, a flag, a peer subscription): a
      // version that created the queue after the reads would miss each of them.
      const fetchers = STATE_FETCHERS as Record<string, StateFetcher>;
      const drafts = fetchers.drafts!;
      let midRead = 0;
      fetchers.drafts = async (ctx) => {
        const n = midRead++;
        // Every fourth read waits for a presence change or a profile value instead.
        if (n % 4 === 3) {
          if (n % 8 === 3)
            expectSuccess(
              await u.othello.client.post("/users/me/presence", { status: n % 16 === 3 ? "idle" : "active" }),
            );
          else
            expectSuccess(
              await u.hamlet.client.patch("/users/me/profile_data", {
                data: [{ id: phone, value: `mid-read ${n}` }],
              }),
            );
        } else if (n % 3 === 0)
          sent.push(await sendToChannel(u.hamlet, "Elsinore", "castle", `mid-read ${n}`));
        else if (n % 3 === 1)
          expectSuccess(
            await viewer.client.post("/messages/flags", {
              messages: sent.slice(-1),
              op: "add",
              flag: "read",
            }),
          );
        else if (n % 2 === 0) await subscribe(u.hamlet, ["Elsinore"], [u.cordelia]);
        else
          expectSuccess(
            await u.hamlet.client.delete("/users/me/subscriptions", {
              subscriptions: ["Elsinore"],
              principals: [u.cordelia.id],
            }),
          );
        return drafts(ctx);
      };
      // Registers start all through the changes: each one's snapshot falls somewhere among them.
      const registers: Array<Promise<State>> = [];
      const registering = repeat(24, async () => {
        registers.push(register(viewer.client, REGISTER_PARAMS));
        await registers.at(-1);
      });
      const variantRegisters: Array<{ variant: number; state: Promise<State> }> = [];
      const registeringVariants = repeat(16, async (i) => {
        const variant = i % VARIANTS.length;
        variantRegisters.push({ variant, state: register(viewer.client, VARIANTS[variant]!.params) });
        await variantRegisters.at(-1)!.state;
      });
      const rounds = 12;
      try {
        await Promise.all([
          registering,
          registeringVariants,
          repeat(rounds, async (i) =>
            sent.push(await sendToChannel(u.hamlet, "Elsinore", "castle", `m${i}`)),
          ),
          repeat(rounds, async (i) => sent.push(await sendDirect(u.othello, [viewer], `dm${i}`))),
          // The viewer reads and stars what has arrived (update_message_flags, unread_msgs, starred_messages).
          repeat(rounds, async (i) => {
            const messages = sent.slice(-2);
            const flag = i % 3 === 0 ? "starred" : "read";
            const op = i % 4 === 3 ? "remove" : "add";
            expectSuccess(await viewer.client.post("/messages/flags", { messages, op, flag }));
          }),
          // Subscription add and remove, of the viewer (subscription) and of others (peer_add/peer_remove).
          repeat(rounds, async (i) => {
            if (i % 2 === 0) await subscribe(viewer, ["Yorick"], [u.othello]);
            else
              expectSuccess(
                await viewer.client.delete("/users/me/subscriptions", {
                  subscriptions: ["Yorick"],
                  principals: [u.othello.id],
                }),
              );
          }),
          repeat(rounds, async (i) => {
            if (i % 2 === 0) await subscribe(viewer, ["Ophelia"]);
            else
              expectSuccess(
                await viewer.client.delete("/users/me/subscriptions", { subscriptions: ["Ophelia"] }),
              );
          }),
          // Users (realm_user), the viewer's own settings, a status, and a realm-wide setting.
          repeat(rounds, async (i) => {
            expectSuccess(
              await u.iago.client.patch(`/users/${u.cordelia.id}`, { full_name: `Cordelia ${i}` }),
            );
          }),
          repeat(rounds, async (i) => {
            expectSuccess(await viewer.client.patch("/settings", { twenty_four_hour_time: i % 2 === 0 }));
          }),
          repeat(rounds, async (i) => {
            expectSuccess(await u.hamlet.client.post("/users/me/status", { status_text: `away ${i}` }));
          }),
          repeat(rounds, async (i) => {
            expectSuccess(
              await u.desdemona.client.patch("/realm/user_settings_defaults", { enter_sends: i % 2 === 0 }),
            );
          }),
          // Presence: status changes (each sends a presence event), of the viewer and of another user.
          repeat(rounds, async (i) => {
            const user = i % 2 === 0 ? u.othello : viewer;
            const status = i % 4 < 2 ? "idle" : "active";
            expectSuccess(await user.client.post("/users/me/presence", { status }));
          }),
          // Custom profile values (realm_user update with custom_profile_field), set and cleared.
          repeat(rounds, async (i) => {
            if (i % 3 === 2)
              expectSuccess(await u.cordelia.client.delete("/users/me/profile_data", { data: [phone] }));
            else
              expectSuccess(
                await u.cordelia.client.patch("/users/me/profile_data", {
                  data: [{ id: phone, value: `555-${i}` }],
                }),
              );
          }),
          // Reactions: events only (register carries no messages), but they take the write lock too.
          repeat(rounds, async (i) => {
            const target = sent[i % sent.length]!;
            expectSuccess(
              await u.othello.client.post(`/messages/${target}/reactions`, { emoji_name: "smile" }),
            );
            expectSuccess(
              await u.othello.client.delete(`/messages/${target}/reactions`, { emoji_name: "smile" }),
            );
          }),
        ]);
      } finally {
        fetchers.drafts = drafts;
      }
      expect(midRead).to.equal(24 + 16);
      const states = await Promise.all(registers);
      expect(states).to.have.lengthOf(24);

      const fresh = stable(await register(viewer.client, REGISTER_PARAMS));
      const me = viewer.id;
      for (const [n, state] of states.entries()) {
        const events = (await pendingEvents(viewer.client, state.queue_id as string)).filter(
          (e) => e.type !== "heartbeat",
        );
        const applied = applyEvents(stable(state), events, { userId: me, includeSubscribers: true });
        const detail = differences(applied, fresh).join("\n");
        expect(
          detail,
          `register ${n} (${events.length} events after it) differs from a fresh one:\n${detail}`,
        ).to.equal("");
      }
      const freshVariants = await Promise.all(
        VARIANTS.map(async (v) => stable(await register(viewer.client, v.params))),
      );
      for (const [n, { variant, state: pending }] of variantRegisters.entries()) {
        const state = await pending;
        const { includeSubscribers } = VARIANTS[variant]!;
        const events = (await pendingEvents(viewer.client, state.queue_id as string)).filter(
          (e) => e.type !== "heartbeat",
        );
        const applied = applyEvents(stable(state), events, { userId: me, includeSubscribers });
        const detail = differences(applied, freshVariants[variant]!).join("\n");
        expect(
          detail,
          `variant register ${n} (${JSON.stringify(VARIANTS[variant]!.params)}, ${events.length} events after it) differs from a fresh one:\n${detail}`,
        ).to.equal("");
      }
      // The new fields were really there to compare.
      const [slice, partial] = freshVariants as [State, State];
      expect(Object.keys(slice.presences as object)).to.not.be.empty;
      const cordelia = (slice.realm_users as State[]).find((p) => p.user_id === u.cordelia.id)!;
      const hamlet = (slice.realm_users as State[]).find((p) => p.user_id === u.hamlet.id)!;
      expect(hamlet.profile_data).to.have.property(String(phone));
      expect(cordelia).to.have.property("profile_data");
      expect((partial.subscriptions as State[]).some((s) => "partial_subscribers" in s || "subscribers" in s))
        .to.be.true;
    });
  });

  describe("the read transaction", function () {
    let server: TestServer;
    let realm: TestRealm;
    let hamlet: TestUser;

    before(async function () {
      // One read connection: a transaction left open, or a capture that waited for the
      // connection its own register holds, would hang every later register.
      server = await startTestServer({ db_read_connections: 1 });
      realm = await server.factory.realm();
      hamlet = cast(realm).hamlet;
    });
    after(async function () {
      await server.close();
    });

    it("lets registers run side by side on one read connection", async function () {
      // Empty caches: each register's capture loads them through the pool.
      server.app.realms.invalidate(realm.id);
      server.app.channels.invalidate(realm.id);
      server.app.userState.clear();
      const states = await Promise.all(Array.from({ length: 6 }, () => register(hamlet.client)));
      expect(new Set(states.map((s) => s.queue_id as string)).size).to.equal(6);
    });

    it("ends when a fetcher fails, and the queue the client never got is dropped", async function () {
      const fetchers = STATE_FETCHERS as Record<string, StateFetcher>;
      const drafts = fetchers.drafts!;
      const queuesBefore = server.app.events.size;
      fetchers.drafts = () => Promise.reject(new Error("a fetcher failed"));
      try {
        const res = await hamlet.client.post("/register", {});
        expect(res.status).to.equal(500);
      } finally {
        fetchers.drafts = drafts;
      }
      expect(server.app.events.size).to.equal(queuesBefore);
      // The only read connection is free again.
      const state = await register(hamlet.client, { fetch_event_types: ["drafts", "message"] });
      expect(state).to.have.property("drafts");
    });
  });
});
