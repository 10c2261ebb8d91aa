import { dataDirConfig } from "../helpers/postgres.js";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { createKnex } from "../../src/db/knex.js";
import { Client, expectSuccess, type ApiResponse } from "../helpers/client.js";
import { OWNER, basicAuth, initDataDir, startServerProcess, type ServerProcess } from "../helpers/cli.js";

/**
 * Security review: a real server, logging at debug level, goes through everything that
 * issues or checks a credential; neither its whole log nor any answer may contain an
 * issued API key, a password, or a stored hash (whole or in part), and the log no
 * temporary file URL's token either (those are answers, and work without a login).
 */
describe("secrets in logs", function () {
  this.timeout(120000);
  let dataDir: string;
  let server: ServerProcess;

  before(function () {
    dataDir = mkdtempSync(join(tmpdir(), "chatd-secrets-"));
  });
  after(async function () {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("never writes an issued key, a password or a hash to the log or into an answer", async function () {
    const owner = initDataDir(dataDir);
    server = await startServerProcess(dataDir, {
      env: { CHATD_LOG_LEVEL: "debug", CHATD_RATE_LIMITING: "true" },
    });
    const secrets = new Set<string>([OWNER.password, owner.api_key]);
    const answers: ApiResponse[] = [];
    const record = (res: ApiResponse) => {
      answers.push(res);
      return res;
    };
    const fresh = (prefix: string) => `${prefix}-${randomBytes(9).toString("base64url")}`;
    const ownerClient = new Client(server.url, { email: owner.email, apiKey: owner.api_key });
    const anonymous = new Client(server.url, null);

    // Users with passwords, logging in for their keys.
    for (const name of ["hamlet", "ophelia"]) {
      const email = `${name}@zulip.test`;
      const password = fresh("pw");
      secrets.add(password);
      expectSuccess(
        record(await ownerClient.post("/users", { email, password, full_name: name, short_name: name })),
      );
      const login = expectSuccess(
        record(await anonymous.post("/fetch_api_key", { username: email, password })),
      );
      secrets.add(login.api_key as string);
      const client = new Client(server.url, { email, apiKey: login.api_key as string });
      expectSuccess(record(await client.get("/users/me")));
      const regenerated = expectSuccess(record(await client.post("/users/me/api_key/regenerate")));
      secrets.add(regenerated.api_key as string);

      // Failed logins: a wrong password, and a password typed into the username field.
      const wrong = fresh("wrong");
      secrets.add(wrong);
      record(await anonymous.post("/fetch_api_key", { username: email, password: wrong }));
      record(await anonymous.post("/fetch_api_key", { username: password, password }));
      record(await anonymous.post("/fetch_api_key", { username: email, password: "" }));
    }

    // Bots and their keys.
    const bot = expectSuccess(
      record(await ownerClient.post("/bots", { full_name: "Yorick", short_name: "yorick" })),
    );
    secrets.add(bot.api_key as string);
    const botKey = expectSuccess(record(await ownerClient.post(`/bots/${bot.user_id}/api_key/regenerate`)));
    secrets.add(botKey.api_key as string);
    const botUser = expectSuccess(record(await ownerClient.get(`/users/${bot.user_id as number}`)));
    const botEmail = (botUser.user as { email: string }).email;
    const botClient = new Client(server.url, {
      email: botEmail,
      apiKey: botKey.api_key as string,
    });
    expectSuccess(record(await botClient.get("/users/me")));

    // Bad keys: a wrong key, a stale key, a key in the query string, a malformed header.
    const badKey = fresh("badkey");
    secrets.add(badKey);
    record(await new Client(server.url, { email: owner.email, apiKey: badKey }).get("/users/me"));
    record(await new Client(server.url, { email: botEmail, apiKey: bot.api_key as string }).get("/users/me"));
    record(await anonymous.get("/users/me", { api_key: badKey }));
    record(await anonymous.get("/users/me", {}, { headers: { authorization: `Basic ${badKey}` } }));
    record(await anonymous.get("/users/me", {}, { headers: { authorization: `Bearer ${badKey}` } }));

    // Temporary file URLs: their tokens serve a file without a login. Each is fetched as
    // issued, with its path spelled otherwise (user-uploads.ts decodes each segment), and
    // with a trailing slash (refused, but the token is as good).
    const tokens = new Set<string>();
    for (const name of ["notes.txt", "a b.txt", "report.pdf"]) {
      const form = new FormData();
      form.append("file", new Blob([fresh("file")]), name);
      const uploaded = await fetch(`${server.url}/api/v1/user_uploads`, {
        method: "POST",
        headers: basicAuth(owner.email, owner.api_key),
        body: form,
      });
      const url = ((await uploaded.json()) as { url: string }).url;
      const temporary = expectSuccess(record(await ownerClient.get(url))).url as string;
      const token = /^\/user_uploads\/temporary\/([^/]+)\//.exec(temporary)![1]!;
      tokens.add(token);
      expect((await fetch(`${server.url}${temporary}`)).status, temporary).to.equal(200);
      const respelled = temporary
        .replace("/temporary/", "/temporar%79/")
        .replace(token, `%${token.charCodeAt(0).toString(16)}${token.slice(1)}`);
      expect((await fetch(`${server.url}${respelled}`)).status, respelled).to.equal(200);
      await fetch(`${server.url}${temporary}/`);
    }
    // An incoming webhook's URL carries the bot's key in its query string.
    const hook = await fetch(
      `${server.url}/api/v1/external/json?api_key=${encodeURIComponent(botKey.api_key as string)}&stream=general`,
      { method: "POST", headers: { "content-type": "application/json" }, body: '{"text": "hi"}' },
    );
    expect(hook.status).to.be.below(500);

    const code = await server.stop();
    expect(code).to.equal(0);

    // What the database stores: password hashes and API key digests (and their parts).
    const knex = createKnex(dataDirConfig(dataDir));
    try {
      for (const row of await knex("users").whereNotNull("password_hash").select("password_hash")) {
        const hash = (row as { password_hash: string }).password_hash;
        secrets.add(hash);
        for (const part of hash.split("$").filter((p) => p.length >= 16)) secrets.add(part);
      }
      for (const row of await knex("api_keys").select("key_hash")) {
        secrets.add((row as { key_hash: string }).key_hash);
      }
    } finally {
      await knex.destroy();
    }

    const log = server.log();
    expect(log, "the log is not empty (debug level)").to.include("POST /api/v1/fetch_api_key 401");
    expect(tokens.size).to.equal(3);
    const inAnswers = answers.map((res) => JSON.stringify(res.body)).join("\n");
    const issuedOnPurpose = new Set<unknown>(
      answers.map((res) => (res.body as { api_key?: string }).api_key),
    );
    // Temporary URLs are answers' purpose: only the log must never hold them.
    for (const token of tokens) {
      secrets.add(token);
      issuedOnPurpose.add(token);
    }
    for (const secret of secrets) {
      expect(log.includes(secret), `the log contains a secret (${secret.length} characters)`).to.equal(false);
      if (!issuedOnPurpose.has(secret)) {
        expect(inAnswers.includes(secret), `an answer contains a secret`).to.equal(false);
      }
    }
    expect(secrets.size).to.be.at.least(18);
    // The requests that carried them are logged, without them.
    expect(log).to.match(/GET \/user_uploads\/temporary\/\[redacted\]\/notes\.txt 200 /);
    expect(log).to.include("POST /api/v1/external/json ");
  });
});
