import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { basicAuth, chatd, initDataDir, startServerProcess, type ServerProcess } from "../helpers/cli.js";

// A running server remembers Basic credentials that worked (http/auth.ts); an admin
// command in another process changes the database under it. The data_version watch
// (external_change_poll_ms) must make the server forget them.
describe("authentication: remembered credentials and changes by the CLI", function () {
  this.timeout(120_000);
  const POLL_MS = 100;
  let dataDir: string;
  let server: ServerProcess;

  before(async function () {
    dataDir = mkdtempSync(join(tmpdir(), "chatd-auth-cache-"));
    initDataDir(dataDir);
    server = await startServerProcess(dataDir, { env: { CHATD_EXTERNAL_CHANGE_POLL_MS: String(POLL_MS) } });
  });
  after(async function () {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const cli = async (...args: string[]) => {
    const res = await chatd(["--data-dir", dataDir, ...args, "--json"]);
    expect(res.code, res.stderr).to.equal(0);
    return JSON.parse(res.stdout) as Record<string, unknown>;
  };
  const usersMe = async (email: string, apiKey: string) => {
    const res = await fetch(`${server.url}/api/v1/users/me`, { headers: basicAuth(email, apiKey) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  /** The answers from the CLI's exit until one has the code, within a few watch intervals. */
  const refusedSoon = async (email: string, apiKey: string, code: string) => {
    const deadline = Date.now() + 20 * POLL_MS + 5000;
    for (;;) {
      const res = await usersMe(email, apiKey);
      if (res.body.code === code) return res;
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(Date.now(), `still accepted after the change: ${code} expected`).to.be.below(deadline);
      await new Promise((r) => setTimeout(r, POLL_MS / 2));
    }
  };

  it("revoking every key refuses the remembered one; deactivating refuses the new one", async function () {
    const email = "hamlet@zulip.test";
    await cli(
      "user",
      "create",
      "--no-input",
      "--email",
      email,
      "--full-name",
      "Hamlet",
      "--password",
      "hamlet-pw",
    );
    const first = (await cli("api-key", "--no-input", "--email", email)).api_key as string;
    // Wait until the server sees the new user and key, then authenticate twice (remembered).
    for (let i = 0; (await usersMe(email, first)).status !== 200; i++) {
      expect(i).to.be.below(100);
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    expect((await usersMe(email, first)).status).to.equal(200);

    const second = (await cli("api-key", "--no-input", "--revoke-all", "--email", email)).api_key as string;
    const refused = await refusedSoon(email, first, "INVALID_API_KEY");
    expect(refused.status).to.equal(401);
    // And it stays refused, while the new key works.
    expect((await usersMe(email, first)).status).to.equal(401);
    expect((await usersMe(email, second)).status).to.equal(200);
    expect((await usersMe(email, second)).status).to.equal(200);

    await cli("user", "deactivate", "--no-input", "--email", email);
    expect((await refusedSoon(email, second, "USER_DEACTIVATED")).status).to.equal(401);
    expect((await usersMe(email, second)).body.code).to.equal("USER_DEACTIVATED");
  });
});
