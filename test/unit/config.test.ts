import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { ConfigError, emailHost, loadConfig, realmUrl, saveSetting } from "../../src/config.js";

describe("configuration layering", function () {
  let dir: string;
  beforeEach(function () {
    dir = mkdtempSync(join(tmpdir(), "chatd-config-"));
  });
  afterEach(function () {
    rmSync(dir, { recursive: true, force: true });
  });

  it("uses the documented defaults", function () {
    const config = loadConfig({ dataDir: dir, env: {} });
    expect(config).to.include({
      host: "127.0.0.1",
      port: 9991,
      heartbeat_interval_secs: 60,
      idle_queue_timeout_secs: 600,
    });
    expect(config.log_level).to.equal("info");
    expect(config.sqlite_synchronous).to.equal("full");
    expect(realmUrl(config)).to.equal("http://127.0.0.1:9991");
  });

  it("applies settings.json, then environment, then flags", function () {
    writeFileSync(
      join(dir, "settings.json"),
      JSON.stringify({ port: 8000, host: "0.0.0.0", log_level: "warn" }),
    );
    const config = loadConfig({
      dataDir: dir,
      env: { CHATD_PORT: "8001", CHATD_LOG_LEVEL: "debug" },
      overrides: { port: "8002" },
    });
    expect(config.host).to.equal("0.0.0.0");
    expect(config.log_level).to.equal("debug");
    expect(config.port).to.equal(8002);
  });

  it("db_lock_timeout_ms: also read under its former name sqlite_busy_timeout_ms, the new name winning", function () {
    expect(loadConfig({ dataDir: dir, env: {} }).db_lock_timeout_ms).to.equal(5000);
    expect(
      loadConfig({ dataDir: dir, env: { CHATD_DB_LOCK_TIMEOUT_MS: "700" } }).db_lock_timeout_ms,
    ).to.equal(700);
    // The former name, in each layer.
    expect(
      loadConfig({ dataDir: dir, env: { CHATD_SQLITE_BUSY_TIMEOUT_MS: "800" } }).db_lock_timeout_ms,
    ).to.equal(800);
    writeFileSync(join(dir, "settings.json"), JSON.stringify({ sqlite_busy_timeout_ms: 900 }));
    expect(loadConfig({ dataDir: dir, env: {} }).db_lock_timeout_ms).to.equal(900);
    // A later layer overrides an earlier one whichever name either uses.
    expect(
      loadConfig({ dataDir: dir, env: { CHATD_DB_LOCK_TIMEOUT_MS: "1000" } }).db_lock_timeout_ms,
    ).to.equal(1000);
    writeFileSync(join(dir, "settings.json"), JSON.stringify({ db_lock_timeout_ms: 1100 }));
    expect(
      loadConfig({ dataDir: dir, env: { CHATD_SQLITE_BUSY_TIMEOUT_MS: "1200" } }).db_lock_timeout_ms,
    ).to.equal(1200);
    // Both names in one layer: the current one wins, in whichever order they come.
    writeFileSync(
      join(dir, "settings.json"),
      JSON.stringify({ db_lock_timeout_ms: 1300, sqlite_busy_timeout_ms: 1 }),
    );
    expect(loadConfig({ dataDir: dir, env: {} }).db_lock_timeout_ms).to.equal(1300);
    const both = { CHATD_SQLITE_BUSY_TIMEOUT_MS: "1", CHATD_DB_LOCK_TIMEOUT_MS: "1400" };
    expect(loadConfig({ dataDir: dir, env: both }).db_lock_timeout_ms).to.equal(1400);
    // The alias is validated like the setting, and is no key of its own.
    expect(() => loadConfig({ dataDir: dir, env: { CHATD_SQLITE_BUSY_TIMEOUT_MS: "-1" } })).to.throw(
      ConfigError,
      /db_lock_timeout_ms \(environment\) must be between 0 and 600000/,
    );
    expect(loadConfig({ dataDir: dir, env: {} })).not.to.have.property("sqlite_busy_timeout_ms");
  });

  it("takes the data directory from the flag, then CHATD_DATA_DIR, then ./data", function () {
    expect(loadConfig({ env: { CHATD_DATA_DIR: dir } }).data_dir).to.equal(dir);
    expect(loadConfig({ env: {} }).data_dir).to.equal(join(process.cwd(), "data"));
  });

  it("derives the realm URL and dummy-email host from external_url", function () {
    const config = loadConfig({ dataDir: dir, env: { CHATD_EXTERNAL_URL: "https://chat.example.com/" } });
    expect(realmUrl(config)).to.equal("https://chat.example.com");
    expect(emailHost(config)).to.equal("chat.example.com");
  });

  it("refuses unknown keys and invalid values with a clear message", function () {
    writeFileSync(join(dir, "settings.json"), JSON.stringify({ prot: 1 }));
    expect(() => loadConfig({ dataDir: dir, env: {} })).to.throw(ConfigError, /Unknown setting 'prot'/);
    rmSync(join(dir, "settings.json"));
    expect(() => loadConfig({ dataDir: dir, env: { CHATD_PORT: "eighty" } })).to.throw(
      ConfigError,
      /port \(environment\) must be an integer/,
    );
    expect(() => loadConfig({ dataDir: dir, env: { CHATD_PORT: "70000" } })).to.throw(
      ConfigError,
      /between 0 and 65535/,
    );
    expect(() => loadConfig({ dataDir: dir, env: { CHATD_LOG_LEVEL: "loud" } })).to.throw(
      ConfigError,
      /log_level \(environment\) must be one of/,
    );
    writeFileSync(join(dir, "settings.json"), "[1,2]");
    expect(() => loadConfig({ dataDir: dir, env: {} })).to.throw(ConfigError, /must hold a JSON object/);
  });

  it("validates rate-limit rules and trusted proxy ranges", function () {
    const env = {
      CHATD_RATE_LIMIT_API_BY_USER: "60:100, 3600:1000",
      CHATD_RATE_LIMIT_API_BY_IP: "",
      CHATD_TRUSTED_PROXIES: "10.0.0.0/8, 127.0.0.1, fd00::/8",
    };
    expect(loadConfig({ dataDir: dir, env })).to.include(
      env.CHATD_RATE_LIMIT_API_BY_USER ? { rate_limit_api_by_ip: "" } : {},
    );
    for (const bad of ["60", "60:0", "0:5", "60:5,", "a:b"]) {
      expect(() => loadConfig({ dataDir: dir, env: { CHATD_RATE_LIMIT_API_BY_USER: bad } })).to.throw(
        ConfigError,
        /rate_limit_api_by_user \(environment\): invalid rule/,
      );
    }
    for (const bad of ["10.0.0.0/33", "10.0.0.0/", "localhost", "::1/129", "1.2.3.4/8/8"]) {
      expect(() => loadConfig({ dataDir: dir, env: { CHATD_TRUSTED_PROXIES: bad } })).to.throw(
        ConfigError,
        /trusted_proxies \(environment\): invalid address or CIDR range/,
      );
    }
  });

  it("webhook_allowed_private_hosts takes names, addresses and ranges, as a list or an array", function () {
    expect(loadConfig({ dataDir: dir, env: {} }).webhook_allowed_private_hosts).to.equal("");
    const env = { CHATD_WEBHOOK_ALLOWED_PRIVATE_HOSTS: "hooks.internal, 10.0.0.0/8, ::1" };
    expect(loadConfig({ dataDir: dir, env }).webhook_allowed_private_hosts).to.equal(
      "hooks.internal, 10.0.0.0/8, ::1",
    );
    writeFileSync(
      join(dir, "settings.json"),
      JSON.stringify({ webhook_allowed_private_hosts: ["127.0.0.1", "bots.local"] }),
    );
    expect(loadConfig({ dataDir: dir, env: {} }).webhook_allowed_private_hosts).to.equal(
      "127.0.0.1,bots.local",
    );
    for (const bad of ["10.0.0.0/33", "http://x", "a b", "::1/129"]) {
      expect(() => loadConfig({ dataDir: dir, env: { CHATD_WEBHOOK_ALLOWED_PRIVATE_HOSTS: bad } })).to.throw(
        ConfigError,
        /webhook_allowed_private_hosts \(environment\): invalid/,
      );
    }
  });

  it("saveSetting keeps other keys and validates the value", function () {
    writeFileSync(join(dir, "settings.json"), JSON.stringify({ port: 8000 }));
    saveSetting(dir, "external_url", "https://chat.example.com");
    expect(loadConfig({ dataDir: dir, env: {} })).to.include({
      port: 8000,
      external_url: "https://chat.example.com",
    });
    expect(() => saveSetting(dir, "port", "x")).to.throw(ConfigError);
  });
});
