import { sqliteOnly } from "../helpers/postgres.js";
import { expect } from "chai";
import { loadWorld } from "../../src/cache/world.js";
import { JsonableError } from "../../src/errors.js";
import {
  fetchRange,
  narrowIdColumn,
  narrowQuery,
  parseNarrow,
  resolveNarrow,
  NEWEST_ANCHOR,
  type NarrowScope,
} from "../../src/lib/narrow/index.js";
import { cast, createChannel, type Cast } from "../helpers/channels.js";
import type { TestRealm, TestUser } from "../helpers/factories.js";
import { sendDirect, sendToChannel } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("narrow module (parse, SQL, anchor window)", function () {
  let server: TestServer;
  let realm: TestRealm;
  let u: Cast;
  const sent: number[] = [];

  before(async function () {
    server = await startTestServer();
    realm = await server.factory.realm();
    u = cast(realm);
    await createChannel(u.hamlet, "Denmark", [u.hamlet, u.othello]);
    for (let i = 0; i < 5; i++) sent.push(await sendToChannel(u.hamlet, "Denmark", "castle", `m${i}`));
    sent.push(await sendDirect(u.hamlet, [u.othello], "hello"));
  });
  after(async function () {
    await server.close();
  });

  async function scopeOf(user: TestUser): Promise<NarrowScope> {
    const app = server.app;
    const world = await loadWorld(app, app.knex, realm.id);
    return { knex: app.knex, world, user: world.realm.user(user.id)!, config: app.config };
  }

  it("parses the object and legacy array forms", function () {
    expect(
      parseNarrow([
        { operator: "stream", operand: "Denmark" },
        ["topic", "castle"],
        { operator: "pm_with", operand: [1, 2], negated: true },
      ]),
    ).to.deep.equal([
      { operator: "stream", operand: "Denmark", negated: false },
      { operator: "topic", operand: "castle", negated: false },
      { operator: "pm-with", operand: [1, 2], negated: true },
    ]);
    for (const [bad, msg] of [
      [[{ operator: "topic" }], "operand is missing"],
      [[{ operand: "x" }], "operator is missing"],
      [[["topic"]], "element is not a string pair"],
    ] as const) {
      expect(() => parseNarrow(bad)).to.throw(JsonableError, msg);
    }
  });

  it("resolves terms to an ID query and an anchor window", async function () {
    const scope = await scopeOf(u.othello);
    const narrow = await resolveNarrow(scope, parseNarrow([["channel", "Denmark"]]));
    const all = (await narrowQuery(scope, narrow).orderBy("m.id")) as Array<{ id: number }>;
    // The channel's creation notice comes first.
    expect(all.map((r) => r.id).slice(-5)).to.deep.equal(sent.slice(0, 5));
    const window = await fetchRange(scope, narrow, {
      anchor: sent[2]!,
      numBefore: 1,
      numAfter: 1,
      includeAnchor: true,
    });
    expect(window.rows.map((r) => r.id)).to.deep.equal(sent.slice(1, 4));
    expect(window).to.include({ foundAnchor: true, foundOldest: false, foundNewest: false });
    const newest = await fetchRange(scope, narrow, {
      anchor: NEWEST_ANCHOR,
      numBefore: 10,
      numAfter: 0,
      includeAnchor: true,
    });
    expect(newest).to.include({ foundAnchor: false, foundOldest: true, foundNewest: true });
  });

  it("throws BAD_NARROW errors with desc", async function () {
    const scope = await scopeOf(u.othello);
    try {
      await resolveNarrow(scope, parseNarrow([["channel", "Nowhere"]]));
      expect.fail("no error");
    } catch (err) {
      expect(err).to.be.instanceOf(JsonableError);
      expect((err as JsonableError).toBody()).to.deep.include({
        code: "BAD_NARROW",
        msg: "Invalid narrow operator: unknown channel Nowhere",
        desc: "unknown channel Nowhere",
      });
    }
  });

  it("is served by indexes (EXPLAIN QUERY PLAN)", async function () {
    sqliteOnly(this, "reads SQLite's EXPLAIN QUERY PLAN; PostgreSQL's planner picks by statistics");
    const scope = await scopeOf(u.othello);
    const plan = async (narrow: unknown) => {
      const resolved = await resolveNarrow(scope, parseNarrow(narrow));
      const { sql, bindings } = narrowQuery(scope, resolved)
        .orderBy(narrowIdColumn(resolved), "desc")
        .limit(10)
        .toSQL();
      const rows = await server.app.knex.raw<Array<{ detail: string }>>(
        `EXPLAIN QUERY PLAN ${sql}`,
        bindings,
      );
      return rows.map((r) => r.detail).join("\n");
    };
    const noScan = (detail: string) => {
      expect(detail).not.to.match(/SCAN (m|um)\b(?! USING)/);
      expect(detail).not.to.match(/TEMP B-TREE/);
      return detail;
    };
    expect(
      noScan(
        await plan([
          ["channel", "Denmark"],
          ["topic", "castle"],
        ]),
      ),
    ).to.match(/messages_stream_id_topic_key_id_index/);
    expect(noScan(await plan([["channel", "Denmark"]]))).to.match(/messages_stream_id_id_index/);
    expect(noScan(await plan([["is", "unread"]]))).to.match(/user_messages_unread|USING/);
    expect(noScan(await plan([["is", "starred"]]))).to.match(/user_messages_starred/);
    expect(noScan(await plan([["is", "mentioned"]]))).to.match(/user_messages_any_mention/);
    expect(noScan(await plan([["is", "dm"]]))).to.match(/user_messages_private/);
    expect(noScan(await plan([["sender", u.hamlet.email]]))).to.match(/USING/);
    expect(noScan(await plan([]))).to.match(/USING/);
  });
});
