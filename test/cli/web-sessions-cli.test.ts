import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { chatd, initDataDir, startServerProcess, type ServerProcess } from "../helpers/cli.js";
import { browse, isLoginPage, json, logIn, submitLogin, type LoggedIn } from "../helpers/web.js";

// The operator's commands run in another process: the sessions they end are rows the
// server reads again once the data_version watch (external_change_poll_ms) tells it.
describe("web sessions and the CLI", function () {
  this.timeout(120_000);
  const POLL_MS = 100;
  let dataDir: string;
  let server: ServerProcess;

  before(async function () {
    dataDir = mkdtempSync(join(tmpdir(), "chatd-web-sessions-"));
    initDataDir(dataDir);
    server = await startServerProcess(dataDir, { env: { CHATD_EXTERNAL_CHANGE_POLL_MS: String(POLL_MS) } });
  });
  after(async function () {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const cli = async (...args: string[]) => {
    const res = await chatd(["--data-dir", dataDir, ...args, "--no-input", "--json"]);
    expect(res.code, res.stderr).to.equal(0);
  };
  const status = async (session: LoggedIn) => (await json(server, session, "GET", "/users/me")).status;
  /** Until the condition holds, within a few watch intervals. */
  const soon = async (condition: () => Promise<boolean>, what: string) => {
    const deadline = Date.now() + 20 * POLL_MS + 5000;
    while (!(await condition())) {
      expect(Date.now(), what).to.be.below(deadline);
      await new Promise((r) => setTimeout(r, POLL_MS / 2));
    }
  };
  const logsIn = async (email: string, password: string) =>
    (await submitLogin(server, email, password)).res.status === 303;

  it("set-password ends the user's sessions", async function () {
    const email = "ophelia@zulip.test";
    await cli("user", "create", "--email", email, "--full-name", "Ophelia", "--password", "ophelia-pw");
    await soon(() => logsIn(email, "ophelia-pw"), "the server sees the new user");
    const session = await logIn(server, { email, password: "ophelia-pw" });
    expect(await status(session)).to.equal(200);

    await cli("user", "set-password", "--email", email, "--password", "ophelia-new-pw");
    await soon(async () => (await status(session)) === 401, "the session ends");
    expect(
      isLoginPage(await (await browse(server, "/", { headers: { cookie: session.cookie } })).text()),
    ).to.equal(true);
    await logIn(server, { email, password: "ophelia-new-pw" });
  });

  it("deactivate ends the user's sessions; reactivate does not revive them", async function () {
    const email = "horatio@zulip.test";
    await cli("user", "create", "--email", email, "--full-name", "Horatio", "--password", "horatio-pw");
    await soon(() => logsIn(email, "horatio-pw"), "the server sees the new user");
    const session = await logIn(server, { email, password: "horatio-pw" });
    expect(await status(session)).to.equal(200);

    await cli("user", "deactivate", "--email", email);
    await soon(async () => (await status(session)) === 401, "the session is refused");
    await cli("user", "reactivate", "--email", email);
    await soon(() => logsIn(email, "horatio-pw"), "the server sees the reactivation");
    const refused = await json(server, session, "GET", "/users/me");
    expect(refused.status).to.equal(401);
    expect(refused.body.code).to.equal("UNAUTHORIZED");
  });
});
