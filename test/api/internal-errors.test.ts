import { isPostgres } from "../../src/db/dialect.js";
import { expect } from "chai";
import { createLogger } from "../../src/logger.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import type { TestRealm } from "../helpers/factories.js";

describe("a database error in a request", function () {
  let server: TestServer;
  let realm: TestRealm;
  let log = "";

  beforeEach(async function () {
    log = "";
    server = await startTestServer({}, { logger: createLogger("debug", (line) => (log += line)) });
    realm = await server.factory.realm();
  });
  afterEach(async function () {
    await server.close();
  });

  it("answers a generic 500 and logs the failure without its SQL or values", async function () {
    // Every new API key now fails in the database, as a full disk or a bug would.
    if (isPostgres(server.app.db.knex)) {
      await server.app.db.knex.raw(
        "CREATE FUNCTION refuse_keys() RETURNS trigger LANGUAGE plpgsql AS " +
          "$$ BEGIN RAISE EXCEPTION 'refused by the test' USING ERRCODE = 'check_violation'; END $$",
      );
      await server.app.db.knex.raw(
        "CREATE TRIGGER refuse_keys BEFORE INSERT ON api_keys FOR EACH ROW EXECUTE FUNCTION refuse_keys()",
      );
    } else {
      await server.app.db.knex.raw(
        "CREATE TRIGGER refuse_keys BEFORE INSERT ON api_keys BEGIN SELECT RAISE(ABORT, 'refused by the test'); END",
      );
    }
    const hamlet = realm.users.hamlet!;
    const res = await fetch(`${server.url}/api/v1/fetch_api_key`, {
      method: "POST",
      body: new URLSearchParams({ username: hamlet.email, password: hamlet.password }),
    });
    expect(res.status).to.equal(500);
    expect(await res.json()).to.deep.equal({
      result: "error",
      msg: "Internal server error",
      code: "INTERNAL_SERVER_ERROR",
    });
    expect(log).to.contain("POST /api/v1/fetch_api_key failed: a database constraint failed");
    for (const leak of [hamlet.password, "api_keys", "insert", "values", "refused by the test"]) {
      expect(log.toLowerCase()).not.to.contain(leak.toLowerCase());
    }
  });
});
