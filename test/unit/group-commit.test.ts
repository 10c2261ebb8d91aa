import { expect } from "chai";
import { GroupCommit } from "../../src/db/group-commit.js";
import type { Tx } from "../../src/db/tx.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("group commit", function () {
  let server: TestServer;
  before(async function () {
    server = await startTestServer();
  });
  after(async function () {
    await server.close();
  });

  /** Writes items as realm names, records each transaction's batch, refuses "poison". */
  function recorder() {
    const batches: string[][] = [];
    const commits = new GroupCommit<string, number>(server.app.db, async (tx: Tx, items) => {
      batches.push(items);
      const ids: number[] = [];
      for (const item of items) {
        if (item === "poison") throw new Error("poisoned");
        await tx.knex("realms").where({ id: -1 }).update({ name: item });
        ids.push(items.indexOf(item) * 10);
      }
      return ids;
    });
    return { batches, commits };
  }

  it("shares one transaction among items that arrive while another commits", async function () {
    const { batches, commits } = recorder();
    const results = await Promise.all(["a", "b", "c", "d"].map((item) => commits.submit(item)));
    // The first item starts a transaction at once; the rest queue behind it and share one.
    expect(batches).to.deep.equal([["a"], ["b", "c", "d"]]);
    expect(results).to.deep.equal([0, 0, 10, 20]);
  });

  it("isolates a failing item: its neighbours still commit", async function () {
    const { batches, commits } = recorder();
    const first = commits.submit("a");
    const outcomes = await Promise.allSettled([
      first,
      commits.submit("b"),
      commits.submit("poison"),
      commits.submit("c"),
    ]);
    expect(outcomes.map((o) => o.status)).to.deep.equal(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
    // The shared batch failed as a whole, then each item was retried alone.
    expect(batches).to.deep.equal([["a"], ["b", "poison", "c"], ["b"], ["poison"], ["c"]]);
    expect((outcomes[2] as PromiseRejectedResult).reason).to.have.property("message", "poisoned");
  });
});
