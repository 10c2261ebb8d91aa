import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChildProcess } from "node:child_process";
import { exited, freePort, initDataDir, chatdSync, spawnServe, waitForServer } from "../helpers/cli.js";

/**
 * The server learns of admin commands' writes by polling (external_change_poll_ms); a
 * login or a key must work at once, not a poll later. The poll is set to a minute here so
 * only the login path itself can make these pass.
 */
describe("the chatd CLI beside a running server: logins right after a command", function () {
  this.timeout(60_000);
  let dataDir: string;
  let child: ChildProcess;
  let url: string;

  before(async function () {
    dataDir = mkdtempSync(join(tmpdir(), "chatd-fresh-login-"));
    initDataDir(dataDir);
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    child = spawnServe(dataDir, port, {
      CHATD_EXTERNAL_CHANGE_POLL_MS: "60000",
      CHATD_RATE_LIMITING: "false",
    });
    await waitForServer(url, child);
  });
  after(async function () {
    child.kill("SIGTERM");
    await exited(child);
    rmSync(dataDir, { recursive: true, force: true });
  });

  const fetchApiKey = async (username: string, password: string) =>
    (await (
      await fetch(`${url}/api/v1/fetch_api_key`, {
        method: "POST",
        body: new URLSearchParams({ username, password }),
      })
    ).json()) as { result: string; code?: string; api_key?: string };
  const usersMe = async (email: string, key: string) =>
    (await (
      await fetch(`${url}/api/v1/users/me`, {
        headers: { authorization: `Basic ${Buffer.from(`${email}:${key}`).toString("base64")}` },
      })
    ).json()) as { result: string; email?: string };

  it("a user the CLI just created logs in with their password at once", async function () {
    const email = "ophelia@zulip.test";
    // Warm the cache so that it holds the organization without the new user.
    expect((await fetchApiKey("desdemona@zulip.test", "correct horse")).result).to.equal("success");
    const created = chatdSync([
      "--data-dir",
      dataDir,
      "user",
      "create",
      "--no-input",
      "--email",
      email,
      "--full-name",
      "Ophelia",
      "--password",
      "get-thee-1",
    ]);
    expect(created.code, created.stderr).to.equal(0);
    const login = await fetchApiKey(email, "get-thee-1");
    expect(login.result, JSON.stringify(login)).to.equal("success");
    expect((await usersMe(email, login.api_key!)).email).to.equal(email);
    // A wrong password stays wrong.
    expect(await fetchApiKey(email, "get-thee-2")).to.include({ code: "AUTHENTICATION_FAILED" });
  });

  it("a password the CLI just set works at once, and the old one no longer does", async function () {
    const email = "ophelia@zulip.test";
    const set = chatdSync([
      "--data-dir",
      dataDir,
      "user",
      "set-password",
      "--no-input",
      "--email",
      email,
      "--password",
      "to-a-nunnery",
    ]);
    expect(set.code, set.stderr).to.equal(0);
    expect((await fetchApiKey(email, "to-a-nunnery")).result).to.equal("success");
    expect(await fetchApiKey(email, "get-thee-1")).to.include({ code: "AUTHENTICATION_FAILED" });
  });

  it("an API key the CLI just issued for a new user works at once", async function () {
    const email = "laertes@zulip.test";
    const created = chatdSync([
      "--data-dir",
      dataDir,
      "user",
      "create",
      "--no-input",
      "--email",
      email,
      "--full-name",
      "Laertes",
      "--password",
      "revenge-1",
    ]);
    expect(created.code, created.stderr).to.equal(0);
    const issued = chatdSync(["--data-dir", dataDir, "api-key", "--no-input", "--email", email, "--json"]);
    expect(issued.code, issued.stderr).to.equal(0);
    const key = (JSON.parse(issued.stdout) as { api_key: string }).api_key;
    expect(await usersMe(email, key)).to.include({ result: "success", email });
  });

  it("an API key the CLI issues works at once while the server holds the keys it knew", async function () {
    const email = "desdemona@zulip.test";
    const login = await fetchApiKey(email, "correct horse");
    // Keys in use: the server holds every key it knew, without the one issued next.
    expect(await usersMe(email, login.api_key!)).to.include({ result: "success", email });
    const issued = chatdSync(["--data-dir", dataDir, "api-key", "--no-input", "--email", email, "--json"]);
    expect(issued.code, issued.stderr).to.equal(0);
    const key = (JSON.parse(issued.stdout) as { api_key: string }).api_key;
    expect(await usersMe(email, key)).to.include({ result: "success", email });
    // A key nobody issued stays refused.
    expect(
      await usersMe(
        email,
        key.replace(/.$/, (c) => (c === "a" ? "b" : "a")),
      ),
    ).to.include({
      result: "error",
    });
  });
});
