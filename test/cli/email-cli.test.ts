import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { cliIn, initDataDir, OWNER } from "../helpers/cli.js";
import { startTestServer } from "../helpers/server.js";
import { browse } from "../helpers/web.js";
import { TestSmtpServer } from "../helpers/smtp.js";

describe("the chatd CLI: email test", function () {
  this.timeout(120_000);
  let dataDir: string;
  const smtp = new TestSmtpServer();
  const smtpEnv = () => ({
    CHATD_SMTP_HOST: "127.0.0.1",
    CHATD_SMTP_PORT: String(smtp.port),
    CHATD_SMTP_SECURITY: "none",
    CHATD_SMTP_PASSWORD: "hunter2-smtp-secret",
    CHATD_EMAIL_FROM: "chatd@zulip.test",
  });
  // Not blocking: the SMTP server answers from this process.
  const chatd = (args: string[], env: NodeJS.ProcessEnv = {}) => cliIn(dataDir).async(args, { env });

  before(async function () {
    dataDir = mkdtempSync(join(tmpdir(), "chatd-cli-email-"));
    initDataDir(dataDir);
    await smtp.start();
  });
  after(async function () {
    await smtp.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  beforeEach(function () {
    smtp.received.length = 0;
    smtp.refuseWith = null;
  });

  it("sends through the SMTP server and prints its answer", async function () {
    const res = await chatd(["email", "test", "--to", "ophelia@zulip.test"], smtpEnv());
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stdout).to.match(/^sent to ophelia@zulip\.test; the SMTP server answered: 250 /);
    expect(smtp.received).to.have.length(1);
    const email = smtp.received[0]!;
    expect(email.to).to.deep.equal(["ophelia@zulip.test"]);
    expect(email.from).to.equal("Elsinore <chatd@zulip.test>");
    expect(email.subject).to.equal("Test email from Elsinore");
    expect(email.text).to.contain("This is a test email from the chatd server at ");
    expect(email.html).to.contain("<p>This is a test email from the chatd server at ");
  });

  it("--json prints the answer", async function () {
    const res = await chatd(["email", "test", "--to", "ophelia@zulip.test", "--json"], smtpEnv());
    expect(res.code, res.stderr).to.equal(0);
    const out = JSON.parse(res.stdout) as { to: string; sent: boolean; answer: string };
    expect(out).to.include({ to: "ophelia@zulip.test", sent: true });
    expect(out.answer).to.match(/^250 /);
  });

  it("a refusal exits 1 with the server's answer, and no password in it", async function () {
    smtp.refuseWith = "550 Relaying denied";
    const res = await chatd(["email", "test", "--to", "ophelia@zulip.test"], smtpEnv());
    expect(res.code).to.equal(1);
    expect(res.stdout).to.equal("");
    expect(res.stderr).to.contain("sending to ophelia@zulip.test through 127.0.0.1:");
    expect(res.stderr).to.contain("550 Relaying denied");
    expect(res.stderr).not.to.contain("hunter2-smtp-secret");
  });

  it("an unreachable server exits 1 with the network's error", async function () {
    const res = await chatd(["email", "test", "--to", "ophelia@zulip.test"], {
      ...smtpEnv(),
      CHATD_SMTP_PORT: "1",
    });
    expect(res.code).to.equal(1);
    expect(res.stderr).to.match(/failed: .*(ECONNREFUSED|connect)/);
  });

  it("with email off, says so and writes the email under outbox/", async function () {
    const res = await chatd(["email", "test", "--to", "ophelia@zulip.test"]);
    expect(res.code, res.stderr).to.equal(0);
    const files = readdirSync(join(dataDir, "outbox"));
    expect(files).to.have.length(1);
    const path = join(dataDir, "outbox", files[0]!);
    expect(res.stdout.trim()).to.equal(
      `email is off (no smtp_host): nothing was sent; the email was written to ${path}`,
    );
    expect(statSync(path).mode & 0o777).to.equal(0o600);
    expect(smtp.received).to.have.length(0);
  });

  it("refuses a missing or malformed address", async function () {
    for (const args of [[], ["--to", "not-an-address"]]) {
      const res = await chatd(["email", "test", ...args], smtpEnv());
      expect(res.code).to.equal(1);
      expect(res.stderr).to.match(/--to: (required|not an email address: not-an-address)/);
      expect(smtp.received).to.have.length(0);
    }
  });
});

describe("the chatd CLI: user reset-password", function () {
  this.timeout(120_000);
  let dataDir: string;
  const chatd = (...args: string[]) => cliIn(dataDir)(args);

  before(function () {
    dataDir = mkdtempSync(join(tmpdir(), "chatd-cli-reset-"));
    initDataDir(dataDir, ["--external-url", "https://chat.example.com"]);
  });
  after(function () {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("prints a single-use link that opens the page setting a new password; a new one revokes it", async function () {
    const first = chatd("user", "reset-password", "--email", OWNER.email, "--json");
    expect(first.code, first.stderr).to.equal(0);
    const out = JSON.parse(first.stdout) as { email: string; link: string; expires_at: number };
    expect(out.email).to.equal(OWNER.email);
    expect(out.link).to.match(
      /^https:\/\/chat\.example\.com\/accounts\/password\/reset\/confirm\/\?token=[\w-]{43}$/,
    );
    expect(out.expires_at - Date.now() / 1000).to.be.within(3590, 3601);
    const second = chatd("user", "reset-password", "--email", OWNER.email);
    expect(second.code, second.stderr).to.equal(0);
    const link = second.stdout.trim();
    expect(link).to.match(
      /^https:\/\/chat\.example\.com\/accounts\/password\/reset\/confirm\/\?token=[\w-]{43}$/,
    );

    const server = await startTestServer({}, { dataDir, keepDataDir: true });
    try {
      const path = (url: string) => url.slice("https://chat.example.com".length);
      const page = await browse(server, path(link));
      expect(page.status).to.equal(200);
      expect(await page.text()).to.contain("New password");
      expect((await browse(server, path(out.link))).status).to.equal(410);
    } finally {
      await server.stop();
    }
  });

  it("refuses an unknown user", function () {
    const res = chatd("user", "reset-password", "--email", "nobody@zulip.test", "--no-input");
    expect(res.code).to.equal(1);
    expect(res.stdout).to.equal("");
  });
});
