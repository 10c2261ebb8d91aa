import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { cliIn, initDataDir } from "../helpers/cli.js";
import { closeApp, createApp } from "../../src/server/create-app.js";
import { silentLogger } from "../../src/logger.js";
import { dataDirConfig } from "../helpers/postgres.js";

interface Invite {
  id: number;
  email?: string;
  link_url?: string;
  invited_as: number;
  is_multiuse: boolean;
  expiry_date: number | null;
}

const LINK = /^http:\/\/[^/]+\/join\/[A-Za-z0-9_-]{43}\/$/;

describe("the chatd CLI: invite create, link, list and revoke", function () {
  this.timeout(120_000);
  let dataDir: string;
  const chatd = (...args: string[]) => cliIn(dataDir)(args);
  const json = <T>(...args: string[]): T => {
    const res = chatd(...args, "--json");
    expect(res.code, res.stderr).to.equal(0);
    return JSON.parse(res.stdout) as T;
  };

  before(function () {
    dataDir = mkdtempSync(join(tmpdir(), "chatd-cli-invites-"));
    initDataDir(dataDir);
  });
  after(function () {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("invite create prints a link per address, says email is off, and queues the emails", async function () {
    const res = chatd(
      "invite",
      "create",
      "--email",
      "ann@example.com",
      "--email",
      "bob@example.com",
      "--channel",
      "general",
    );
    expect(res.code, res.stderr).to.equal(0);
    const lines = res.stdout.trim().split("\n");
    expect(lines.map((l) => l.split(/\s+/)[0])).to.have.members(["ann@example.com", "bob@example.com"]);
    for (const line of lines) expect(line.split(/\s+/)[1]).to.match(LINK);
    expect(res.stderr).to.include("Email is off");
    const app = await createApp(dataDirConfig(dataDir), { logger: silentLogger, migrate: false });
    try {
      const mails = await app
        .knex("emails")
        .whereIn("to_address", ["ann@example.com", "bob@example.com"])
        .pluck("text_body");
      expect(mails).to.have.length.of.at.least(2);
      for (const line of lines) {
        const [email, link] = line.split(/\s+/) as [string, string];
        const bodies = await app.knex("emails").where({ to_address: email }).pluck("text_body");
        expect(
          bodies.some((b: string) => b.includes(link)),
          email,
        ).to.equal(true);
      }
    } finally {
      await closeApp(app);
    }
  });

  it("invite create --json prints {email, link, expires_at}; --as and --expires-in-days apply", function () {
    const before = Date.now();
    const [made] = json<Array<{ email: string; link: string; expires_at: string | null }>>(
      "invite",
      "create",
      "--email",
      "guest@example.com",
      "--as",
      "guest",
      "--expires-in-days",
      "2",
    );
    expect(made!.email).to.equal("guest@example.com");
    expect(made!.link).to.match(LINK);
    const expires = Date.parse(made!.expires_at!);
    expect(expires).to.be.within(before + 2 * 86400_000 - 2000, Date.now() + 2 * 86400_000 + 2000);
    const listed = json<Invite[]>("invite", "list").find((i) => i.email === "guest@example.com")!;
    expect(listed.invited_as).to.equal(600);
    const never = json<Array<{ expires_at: string | null }>>(
      "invite",
      "create",
      "--email",
      "n@example.com",
      "--expires-in-days",
      "never",
    );
    expect(never[0]!.expires_at).to.equal(null);
  });

  it("invite link prints a reusable link; list shows it; revoke removes it", function () {
    const made = json<{ link: string; expires_at: string | null }>("invite", "link", "--as", "member");
    expect(made.link).to.match(LINK);
    const listed = json<Invite[]>("invite", "list").find((i) => i.is_multiuse)!;
    expect(listed.link_url).to.equal(made.link);
    const text = chatd("invite", "list");
    expect(text.stdout).to.include(made.link);
    const res = chatd("invite", "revoke", String(listed.id));
    expect(res.code, res.stderr).to.equal(0);
    expect(json<Invite[]>("invite", "list").map((i) => i.id)).not.to.include(listed.id);
    const again = chatd("invite", "revoke", String(listed.id));
    expect(again.code).to.equal(1);
    expect(again.stderr).to.include(`no pending invitation with ID ${listed.id}`);
  });

  it("refuses bad input and changes nothing", function () {
    const before = json<Invite[]>("invite", "list");
    for (const [args, message] of [
      [["invite", "create"], "give at least one --email"],
      [["invite", "create", "--email", "x@example.com", "--as", "king"], "--as must be one of"],
      [["invite", "create", "--email", "x@example.com", "--channel", "nowhere"], "no channel named nowhere"],
      [
        ["invite", "create", "--email", "x@example.com", "--expires-in-days", "-1"],
        "--expires-in-days must be",
      ],
      [["invite", "create", "--email", "not-an-address"], "Some emails did not validate"],
    ] as const) {
      const res = chatd(...args);
      expect(res.code, args.join(" ")).to.equal(1);
      expect(res.stderr).to.include(message);
    }
    expect(json<Invite[]>("invite", "list")).to.deep.equal(before);
    const taken = chatd("invite", "create", "--email", "desdemona@zulip.test", "--email", "new@example.com");
    expect(taken.code).to.equal(0);
    expect(taken.stderr).to.include("skipped desdemona@zulip.test: Already has an account.");
    expect(taken.stdout).to.include("new@example.com");
  });
});
