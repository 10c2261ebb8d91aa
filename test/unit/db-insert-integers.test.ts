import { expect } from "chai";
import { bulkInsertIntegers } from "../../src/db/insert.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("db: bulkInsertIntegers", function () {
  let server: TestServer;
  before(async function () {
    server = await startTestServer();
    await server.app.db.knex.schema.createTable("insert_integers_probe", (t) => {
      t.integer("a");
      t.integer("b");
    });
  });
  after(async function () {
    await server.close();
  });

  const rows = () => server.app.db.knex("insert_integers_probe").orderBy("a").select("a", "b");

  it("inserts every row, across several statements", async function () {
    const values = Array.from({ length: 25 }, (_, i) => [i, 7 - i * 1000]);
    await bulkInsertIntegers(server.app.db.knex, "insert_integers_probe", ["a", "b"], values, 10);
    expect(await rows()).to.deep.equal(values.map(([a, b]) => ({ a, b })));
    await server.app.db.knex("insert_integers_probe").delete();
  });

  it("refuses anything but integers before writing a row, and names no value", async function () {
    const hostile: unknown[] = ["1); DROP TABLE users; --", 1.5, Number.NaN, 2 ** 60, null];
    for (const value of hostile) {
      const attempt = bulkInsertIntegers(
        server.app.db.knex,
        "insert_integers_probe",
        ["a", "b"],
        [
          [1, 2],
          [3, value as number],
        ],
      );
      const error = await attempt.then(
        () => null,
        (err: Error) => err,
      );
      expect(error, String(value)).to.be.an("error");
      expect(error!.message).to.not.contain(String(value));
    }
    // A row of the wrong width is refused too.
    await bulkInsertIntegers(server.app.db.knex, "insert_integers_probe", ["a", "b"], [[1]]).then(
      () => expect.fail("accepted a short row"),
      (err: Error) => expect(err.message).to.match(/not 2 integers/),
    );
    // So is a row with a hole, which every() would have skipped.
    const holed = new Array<number>(3);
    holed[0] = 1;
    holed[2] = 3;
    await bulkInsertIntegers(server.app.db.knex, "insert_integers_probe", ["a", "b", "c"], [holed]).then(
      () => expect.fail("accepted a row with a hole"),
      (err: Error) => expect(err.message).to.match(/not 3 integers/),
    );
    expect(await rows()).to.deep.equal([]);
    expect(await server.app.db.knex("users").count({ n: "*" })).to.have.length(1);
  });

  it("reports a failed statement by its code, without the statement or its values", async function () {
    await bulkInsertIntegers(server.app.db.knex, "insert_integers_probe", ["a", "nope"], [[424242, 1]]).then(
      () => expect.fail("inserted into a missing column"),
      (err: Error & { code?: string }) => {
        // SQLITE_ERROR, or PostgreSQL's undefined_column.
        expect(err.code)
          .to.be.a("string")
          .and.match(/^(SQLITE_ERROR|42703)$/);
        expect(err.message).to.equal(`insert into insert_integers_probe failed (${err.code})`);
        expect(err.message).to.not.contain("424242").and.not.contain("INSERT");
      },
    );
  });
});
