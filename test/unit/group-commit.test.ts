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

  it("shares one transaction among items that arrive together or while another commits", async function () {
    const { batches, commits } = recorder();
    const results = await Promise.all(["a", "b", "c"].map((item) => commits.submit(item)));
    expect(batches).to.deep.equal([["a", "b", "c"]]);
    expect(results).to.deep.equal([0, 10, 20]);
    // Items submitted while a transaction runs wait for it, then share the next one.
    const first = commits.submit("d");
    await new Promise((resolve) => setImmediate(resolve));
    const later = ["e", "f"].map((item) => commits.submit(item));
    expect(await Promise.all([first, ...later])).to.deep.equal([0, 0, 10]);
    expect(batches.slice(1)).to.deep.equal([["d"], ["e", "f"]]);
  });

  it("isolates a failing item: its neighbours still commit", async function () {
    const { batches, commits } = recorder();
    const outcomes = await Promise.allSettled(["b", "poison", "c"].map((item) => commits.submit(item)));
    expect(outcomes.map((o) => o.status)).to.deep.equal(["fulfilled", "rejected", "fulfilled"]);
    // The shared batch failed as a whole, then each item was retried alone.
    expect(batches).to.deep.equal([["b", "poison", "c"], ["b"], ["poison"], ["c"]]);
    expect((outcomes[1] as PromiseRejectedResult).reason).to.have.property("message", "poisoned");
  });
});
