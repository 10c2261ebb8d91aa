import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { testConfig } from "../../src/config.js";
import { SCRYPT_PARAMS, hashPassword, verifyPassword } from "../../src/lib/passwords.js";
import { closeApp, createApp } from "../../src/server/create-app.js";
import { silentLogger } from "../../src/logger.js";
import { CHEAP_SCRYPT } from "../helpers/server.js";

describe("passwords", function () {
  it("hashes with the server's parameters unless the App was built with others", async function () {
    const dir = mkdtempSync(join(tmpdir(), "chatd-passwords-"));
    try {
      const app = await createApp(testConfig(dir), { logger: silentLogger, migrate: false });
      await closeApp(app);
      expect(app.scrypt).to.deep.equal({ N: 16384, r: 8, p: 1 });
      expect(SCRYPT_PARAMS).to.deep.equal({ N: 16384, r: 8, p: 1 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("records the parameters in the hash and verifies with the recorded ones", async function () {
    const strong = await hashPassword("hamlet-password", SCRYPT_PARAMS);
    const cheap = await hashPassword("hamlet-password", CHEAP_SCRYPT);
    expect(strong).to.match(/^scrypt\$16384\$8\$1\$[^$]+\$[^$]+$/);
    expect(cheap).to.match(/^scrypt\$16\$1\$1\$[^$]+\$[^$]+$/);
    for (const hash of [strong, cheap]) {
      expect(await verifyPassword("hamlet-password", hash)).to.equal(true);
      expect(await verifyPassword("hamlet-passwort", hash)).to.equal(false);
    }
  });

  it("salts every hash and refuses malformed or missing ones", async function () {
    const a = await hashPassword("same", CHEAP_SCRYPT);
    const b = await hashPassword("same", CHEAP_SCRYPT);
    expect(a).to.not.equal(b);
    expect(await verifyPassword("same", null)).to.equal(false);
    expect(await verifyPassword("same", "bcrypt$x")).to.equal(false);
    expect(await verifyPassword("same", a.split("$").slice(0, 5).join("$"))).to.equal(false);
  });
});
